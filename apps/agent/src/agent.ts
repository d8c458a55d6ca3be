import { createHmac, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  AnnounceHoldDown,
  Engine,
  NO_PLAN,
  Ownership,
  tsaRolesOf,
  type ForwardingPlan,
  type EngineCounters,
  type ClosedConnection,
  type TsaRoles,
} from '@ipfe/engine';
import {
  ALARM,
  formatHostPort,
  MATE_OF,
  type AgentStatus,
  type ConfigDocument,
  type DataPath,
  type IpfeSlot,
} from '@ipfe/schema';
import pino, { type Logger } from 'pino';
import type { Registry } from 'prom-client';
import { ALARM_RULES, type AlarmInputs } from './alarm-rules.ts';
import { Alarms, type Alarm } from './alarms.ts';
import {
  DEFAULT_HOST_THRESHOLDS,
  HostWatch,
  type HostReadings,
  type HostThresholds,
} from './host-resources.ts';
import { ConfigStore } from './config-store.ts';
import { judgePush, type PushOutcome } from './push-outcome.ts';
import { UserspaceDataPlane, type DataPlane } from './data-plane.ts';
import { DirectDataPlane } from './direct-data-plane.ts';
import { KernelDataPlane } from './kernel-data-plane.ts';
import { ExitGuard } from './exit-guard.ts';
import { ConntrackSync } from './conntrack-sync.ts';
import { createMetrics, newCounts, type AgentCounts } from './metrics.ts';
import { MateLink } from './mate-link.ts';
import {
  configuredEvent,
  initialMateLiveness,
  next as nextMateLiveness,
  type MateEvent,
  type MateLiveness,
} from './mate-liveness.ts';
import { Monitor } from './monitor.ts';
import type { LinkAction } from './link-health.ts';
import { DEFAULT_LINK_WATCH, LinkWatch, type LinkWatchSettings } from './link-watch.ts';
import { InitiatorRelay } from './relay.ts';
import { BalanceWatch, packetsPerTargetSet } from './balance.ts';
import { AddressHolder } from './address-holder.ts';
import { BgpSpeaker, frrPathspace } from './bgp.ts';
import {
  activeActiveTsas,
  announcement,
  holdDownMsOf,
  inActiveActiveGroup,
} from './announce-policy.ts';
import { DATA_PATH_TRAITS } from './data-paths.ts';
import {
  initiatorTsaOf,
  plannedTsas,
  servable,
  servesInitiators,
  watchedServers,
} from './node-roles.ts';
import { countersView, statusView } from './status-view.ts';
import { ThrottleWatch } from './throttle-watch.ts';
import { measurementSeries, measurementsView } from './measurements-view.ts';

export interface AgentOptions {
  slot: IpfeSlot;
  stateDir: string;
  token: string;
  relayPort: number;
  /** The address the control API listens on; the fallback for beacons when the slot is unconfigured. */
  controlHost: string;
  logger?: Logger;
  holdOffMs?: number;
  drainTimeoutMs?: number;
  maxConnections?: number;
  /** Hold served TSAs on this interface (add, announce, remove); unset: the addresses exist already. */
  addressDevice?: string;
  /** Which data path forwards (default user space; the caller checks that a kernel one can run). */
  dataplane?: DataPath;
  /** Share conntrack state with the mate over `addressDevice` (kernel path). */
  syncConntrack?: boolean;
  /** When the host's CPU, memory and state disk raise 5101–5103 (default DEFAULT_HOST_THRESHOLDS). */
  hostThresholds?: HostThresholds;
  /** How `addressDevice`, the TSA-facing link, is watched (default DEFAULT_LINK_WATCH; decision 028). */
  linkWatch?: LinkWatchSettings;
}

const TICK_MS = 50;
const EXPIRE_EVERY_MS = 250;
const ALARMS_EVERY_MS = 1000;
/** A BGP session gets this long after the speaker starts before its absence is an alarm. */
const BGP_GRACE_MS = 10_000;

/** Monotonic milliseconds: timeouts must not jump with the wall clock. */
const monotonic = () => performance.now();

/**
 * An IPFE agent: a thin process around packages/engine. It applies configurations (pushed or
 * persisted), serves the TSAs it owns on real sockets, watches application servers and its mate,
 * and raises alarms.
 */
export class Agent {
  readonly slot: IpfeSlot;
  readonly mate: IpfeSlot;
  readonly boot = randomUUID();
  readonly log: Logger;
  readonly alarms: Alarms;
  readonly counts: AgentCounts = newCounts();
  readonly metrics: Registry;
  readonly store: ConfigStore;

  #engine: Engine | null = null;
  #document: ConfigDocument | null = null;
  #appliedAt: string | null = null;
  #ownership: Ownership;
  #dataPlane: DataPlane;
  #monitor: Monitor;
  #mateLink: MateLink;
  #relay: InitiatorRelay;
  #balance = new BalanceWatch();
  readonly #throttle = new ThrottleWatch();
  readonly #hostWatch: HostWatch;
  readonly #hostThresholds: HostThresholds;
  #host: HostReadings | null = null;
  #addresses: AddressHolder | null = null;
  /** The TSA-facing link (`addressDevice`): while it is down this node cannot serve. */
  #link: LinkWatch | null = null;
  #conntrackSync: ConntrackSync | null = null;
  #guard: ExitGuard | null = null;
  /** FRR, driven for active-active TSAs (direct path only; decision 018). */
  #bgp: BgpSpeaker | null = null;
  #bgpRequest = '';
  readonly #holdDown = new AnnounceHoldDown();
  #bgpPolling = false;
  #owned = new Map<string, TsaRoles>();
  #mate: MateLiveness;
  #tick: NodeJS.Timeout | null = null;
  #lastExpire = 0;
  #lastAlarms = 0;
  #reconciling: Promise<void> = Promise.resolve();
  #ticking = false;
  #stopping = false;

  constructor(private readonly options: AgentOptions) {
    this.slot = options.slot;
    this.mate = MATE_OF[options.slot];
    this.log = options.logger ?? pino({ name: 'ipfe-agent', base: { slot: options.slot } });
    this.store = new ConfigStore(options.stateDir);
    this.alarms = new Alarms((alarm) =>
      this.log[alarm.clearedAt ? 'info' : 'warn'](
        { alarm: alarm.code, targetSet: alarm.targetSet, server: alarm.server },
        `${alarm.clearedAt ? 'cleared' : 'raised'}: ${alarm.name}: ${alarm.text}`,
      ),
    );
    this.#ownership = new Ownership(undefined, { holdOffMs: options.holdOffMs });
    this.#hostWatch = new HostWatch(options.stateDir);
    this.#hostThresholds = options.hostThresholds ?? DEFAULT_HOST_THRESHOLDS;
    this.#mate = initialMateLiveness(monotonic(), this.#ownership.holdOffMs);
    this.metrics = createMetrics({
      slot: this.slot,
      engine: () => this.#counters(),
      counts: this.counts,
      activeAlarms: () => this.alarms.active(),
      bgp: () => this.#bgp?.status() ?? null,
      measurements: () => ({
        series: measurementSeries(this.#document, this.#dataPlane.counts().measured),
        accounting: this.#accounting(),
      }),
    });
    // Kernel state outlives the process: a guard undoes it should the agent be killed outright.
    const traits = DATA_PATH_TRAITS[options.dataplane ?? 'userspace'];
    if (options.addressDevice || traits.kernelState)
      this.#guard = new ExitGuard(options.stateDir, this.log);
    if (options.syncConntrack && options.addressDevice && traits.conntrackSync) {
      this.#conntrackSync = new ConntrackSync(
        options.addressDevice,
        options.stateDir,
        this.log,
        this.#guard,
      );
    }
    this.#dataPlane = this.#newDataPlane(options);
    if (traits.activeActive)
      this.#bgp = new BgpSpeaker(
        options.stateDir,
        frrPathspace(this.slot, options.stateDir),
        this.log,
        this.#guard,
      );
    this.#monitor = new Monitor(
      {
        connected: (server) => this.#closeLetGo(this.#engine?.serverConnected(server, monotonic())),
        lost: (server) => this.#closeLetGo(this.#engine?.serverLost(server, monotonic())),
        heartbeat: (server, report) => {
          this.counts.heartbeats.set(server, (this.counts.heartbeats.get(server) ?? 0) + 1);
          this.#engine?.heartbeat(server, report, monotonic());
        },
        malformed: (server) =>
          this.counts.malformedHeartbeats.set(
            server,
            (this.counts.malformedHeartbeats.get(server) ?? 0) + 1,
          ),
      },
      this.log,
    );
    this.#mateLink = new MateLink(
      {
        slot: this.slot,
        boot: this.boot,
        revision: () => this.#document?.revision ?? 0,
        canServe: () => !this.#link?.state.down,
      },
      options.token,
      (beacon) =>
        this.#mateEvent({ type: 'beacon', boot: beacon.boot, canServe: beacon.canServe !== false }),
      this.log,
      (flows) => this.#dataPlane.flowSharing?.fromMate(flows),
    );
    if (options.addressDevice) {
      this.#addresses = new AddressHolder(options.addressDevice, this.log, this.#guard);
      this.#link = new LinkWatch(
        options.addressDevice,
        options.linkWatch ?? DEFAULT_LINK_WATCH,
        this.log,
        (action) => this.#linkChanged(action),
      );
    }
    this.#relay = new InitiatorRelay({
      engine: () => this.#engine,
      tsaFor: (s) =>
        this.#document ? initiatorTsaOf(this.#document, this.#owned.values(), s) : null,
      log: this.log,
    });
  }

  #newDataPlane(options: AgentOptions): DataPlane {
    const now = monotonic;
    const hashSeed = hashSeedOf(options.token);
    const accounting = () => this.#accounting();
    if (options.dataplane === 'kernel')
      return new KernelDataPlane({
        accounting,
        guard: this.#guard,
        bytes: this.counts.bytes,
        hashSeed,
        slot: this.slot,
        log: this.log,
        conntrackSync: this.#conntrackSync,
        now,
      });
    if (options.dataplane === 'direct') {
      if (!options.addressDevice) throw new Error('the direct data path needs an address device');
      return new DirectDataPlane({
        accounting,
        guard: this.#guard,
        bytes: this.counts.bytes,
        hashSeed,
        slot: this.slot,
        device: options.addressDevice,
        log: this.log,
        now,
        shareFlows: (flows) => this.#mateLink.sendFlows(flows),
        hasMate: () => this.#mate.address !== null,
      });
    }
    return new UserspaceDataPlane({
      accounting,
      engine: () => this.#engine,
      now,
      log: this.log,
      rejectOption: () => this.#document?.config.options.tcpRejectOption ?? 'tcpReset',
      connectTimeoutMs: () =>
        Math.min(3000, (this.#document?.config.options.connectTimeoutS ?? 3) * 1000),
      countBytes: (tsa, direction, bytes) => {
        const entry = this.counts.bytes.get(tsa) ?? { in: 0, out: 0 };
        entry[direction] += bytes;
        this.counts.bytes.set(tsa, entry);
      },
    });
  }

  /**
   * Connections the engine let go. The engine decides on every path (a server lost is offline for
   * the plan too); only a path whose sockets the engine sees has connections of its own to close.
   */
  #closeLetGo(closed: ClosedConnection[] | undefined) {
    if (closed && closed.length > 0) this.#dataPlane.close?.(closed);
  }

  get document(): ConfigDocument | null {
    return this.#document;
  }

  /** Options › Accounting: the data paths count the source product’s measurements only while it is on. */
  #accounting(): boolean {
    return this.#document?.config.options.accounting ?? true;
  }

  /** What the kernel data paths forward now: the engine's plan for the TSAs this node serves. */
  #plan(): ForwardingPlan {
    const tsas = plannedTsas(this.#document, this.#owned.keys(), this.#dataPlane.rendersStandby);
    return this.#engine?.plan(tsas, monotonic(), this.#dataPlane.tableSizing) ?? NO_PLAN;
  }

  /** Starts with the persisted configuration, if any, without waiting for the OAM. */
  async start(): Promise<void> {
    const persisted = this.store.load();
    if (persisted && 'error' in persisted) {
      this.log.error(
        { err: persisted.error },
        'persisted configuration unusable; waiting for a push',
      );
    } else if (persisted) {
      this.log.info(
        { revision: persisted.document.revision },
        'applying the persisted configuration',
      );
      this.#apply(persisted.document);
    }
    this.#link?.start();
    this.#tick = setInterval(() => this.#onTick(), TICK_MS);
    await this.#reconcile();
  }

  /** A pushed document: validated, persisted, then applied (SPEC §4.1). */
  async push(body: unknown): Promise<PushOutcome> {
    const verdict = judgePush(this.#document, body);
    if (verdict.outcome === 'invalid') {
      this.counts.configRejects++;
      this.alarms.raise(ALARM.configurationRejected, verdict.message);
      this.log.warn({ fields: verdict.fields.slice(0, 5) }, 'configuration rejected');
      return verdict;
    }
    if (verdict.outcome === 'stale') return verdict;
    const { document } = verdict;
    if (verdict.apply) {
      this.store.save(document);
      this.#apply(document);
      await this.#reconcile();
    }
    return { outcome: 'applied', revision: document.revision, sha256: document.sha256 };
  }

  #apply(document: ConfigDocument) {
    const now = monotonic();
    if (this.#engine) {
      const result = this.#engine.apply(document, now);
      this.#closeLetGo(result.closed);
    } else {
      this.#engine = new Engine(document, now, {
        slot: this.slot,
        maxConnections: this.options.maxConnections,
      });
      // This node exists for its mate from its first beacon on: the preemption hold-off counts
      // from here, as the mate's does from hearing that beacon, so that they hand over together.
      this.#ownership.restarted(this.slot, now);
    }
    this.#ownership.apply(document);
    this.#document = document;
    this.#appliedAt = new Date().toISOString();
    this.counts.configApplies++;
    this.alarms.clear(ALARM.configurationRejected);
    this.log.info(
      { revision: document.revision, sha256: document.sha256 },
      'configuration applied',
    );
    const options = document.config.options;
    const own = options.ipfe[this.slot]?.address ?? this.options.controlHost;
    this.#mateEvent(configuredEvent(options, this.mate), now);
    const mateAddress = this.#mate.address;
    void this.#conntrackSync?.configure(own, mateAddress);
    this.#mateLink.configure({
      ownAddress: own,
      mateAddress,
      mateSlot: this.mate,
      port: options.mateHeartbeatPort,
      intervalMs: options.mateIntervalMs,
    });
    this.#monitor.configure(watchedServers(document, this.slot), options);
    void this.#relay.listen(
      servesInitiators(document, this.slot) ? own : null,
      this.options.relayPort,
    );
  }

  /** Mate liveness decides (mate-liveness.ts); the agent carries out what it says. */
  #mateEvent(event: MateEvent, now = monotonic()) {
    const { state, actions } = nextMateLiveness(this.#mate, event, now);
    this.#mate = state;
    for (const action of actions) {
      switch (action.do) {
        case 'restarted':
          this.log.info({ mate: this.mate }, 'mate restarted');
          this.#ownership.restarted(this.mate, now);
          this.#dataPlane.flowSharing?.mateReset();
          break;
        case 'back':
          this.log.info({ mate: this.mate }, 'mate heard again');
          this.#ownership.alive(this.mate, now);
          this.#dataPlane.flowSharing?.mateReset();
          setTimeout(() => void this.#reassert(), action.reassertAfterMs);
          break;
        case 'first':
          this.#dataPlane.flowSharing?.mateReset();
          break;
        case 'heard':
          this.alarms.clear(ALARM.signalingHeartbeatTimeout);
          break;
        case 'dead':
          this.#ownership.dead(this.mate, now);
          this.alarms.raise(
            ALARM.signalingHeartbeatTimeout,
            `No beacon from IPFE ${this.mate} for ${action.timeoutMs} ms`,
          );
          break;
        case 'unable':
          this.log.warn({ mate: this.mate }, 'mate cannot serve (its TSA-facing link is down)');
          this.#ownership.unable(this.mate, now);
          break;
        case 'able':
          this.log.info({ mate: this.mate }, 'mate can serve again');
          this.#ownership.able(this.mate, now);
          break;
      }
    }
  }

  /** Link health decides (link-health.ts): Ownership and the mate hear whether this node can serve. */
  #linkChanged(action: LinkAction) {
    const now = monotonic();
    if (action.do === 'down') {
      this.log.warn({ reason: this.#link?.state.down }, 'TSA-facing link down: cannot serve');
      this.#ownership.unable(this.slot, now);
    } else {
      this.log.info('TSA-facing link up: can serve again after the hold-off');
      this.#ownership.able(this.slot, now);
      this.#monitor.reconnect();
    }
    this.#mateLink.beaconNow();
  }

  async #reassert() {
    if (this.#stopping) return;
    const kept = [...this.#owned.values()].filter((r) => !r.activeActive).map((r) => r.address);
    if (kept.length === 0) return;
    this.#addresses?.announce(kept);
    await this.#conntrackSync?.takeOver(kept, { mateAlive: true, kept: true });
  }

  #onTick() {
    if (this.#stopping) return;
    const now = monotonic();
    this.#mateEvent({ type: 'tick' }, now);
    if (this.#engine && now - this.#lastExpire >= EXPIRE_EVERY_MS) {
      this.#lastExpire = now;
      this.#closeLetGo(this.#engine.expire(now));
    }
    // One tick's work at a time: a slow one (an nft transaction) must not queue up the next ones.
    if (!this.#ticking) {
      this.#ticking = true;
      void this.#reconcile()
        .then(() => this.#dataPlane.refresh(() => this.#plan()))
        .finally(() => (this.#ticking = false));
    }
    if (now - this.#lastAlarms >= ALARMS_EVERY_MS) {
      this.#lastAlarms = now;
      this.#evaluateAlarms(now);
    }
  }

  /** Listens on exactly the TSAs this agent serves now (one reconcile at a time). */
  #reconcile(): Promise<void> {
    this.#reconciling = this.#reconciling.then(async () => {
      if (this.#stopping) return;
      const now = monotonic();
      const served = servable(
        this.#document ? this.#ownership.servedBy(this.slot, now) : [],
        this.#bgp !== null,
      );
      const next = new Map(served.map((r) => [r.address, r]));
      for (const [address, roles] of next) {
        if (!this.#owned.has(address)) {
          const takeover = !roles.activeActive && roles.active !== this.slot;
          if (takeover) this.counts.failovers++;
          this.log.info({ tsa: address, targetSet: roles.targetSet, takeover }, 'serving TSA');
        }
      }
      for (const address of this.#owned.keys()) {
        if (!next.has(address)) this.log.info({ tsa: address }, 'no longer serving TSA');
      }
      const gained = [...next.keys()].filter((address) => !this.#owned.has(address));
      this.#owned = next;
      const plan = this.#plan();
      // An active-active TSA is never held with ARP (every IPFE of the group would claim it).
      const held = served.filter((r) => !r.activeActive).map((r) => r.address);
      await this.#dataPlane.serve(plan, {
        served: [...next.keys()],
        gained,
        // A hand-back from a mate that can serve: it is there to tell what it carried meanwhile.
        // One that cannot (its link is down) hands over as a failed one does: at once.
        mateAlive: this.#mate.alive && this.#mate.canServe,
        hold: async () => this.#addresses?.hold(held),
      });
      // Announced once the rules are in, while a server takes new connections.
      this.#announce(plan, served);
    });
    return this.#reconciling;
  }

  /** Asks FRR for the announcements of the active-active TSAs served now (when they change). */
  #announce(plan: ForwardingPlan, served: TsaRoles[]) {
    if (!this.#bgp) return;
    const options = this.#document?.config.options;
    const candidates = activeActiveTsas(plan, served);
    const announced = this.#holdDown.announce(candidates, monotonic(), holdDownMsOf(options));
    const wanted = announcement(
      options,
      this.slot,
      this.#document !== null && inActiveActiveGroup(tsaRolesOf(this.#document), this.slot),
      announced,
    );
    const request = JSON.stringify(wanted);
    if (request === this.#bgpRequest) return;
    this.#bgpRequest = request;
    void this.#bgp.update(wanted.settings, wanted.routerId, [...wanted.prefixes]).then((ok) => {
      // Tried again a second later (FRR slow to start, a vtysh refused).
      if (!ok) setTimeout(() => (this.#bgpRequest = ''), 1000).unref();
    });
  }

  #pollBgp() {
    if (!this.#bgp || this.#bgpPolling) return;
    this.#bgpPolling = true;
    void this.#bgp.poll().finally(() => (this.#bgpPolling = false));
  }

  #evaluateAlarms(now: number) {
    const document = this.#document;
    const engine = this.#engine;
    if (!document || !engine) return;
    const status = engine.status(now);
    this.#pollBgp();
    const ownedSets = new Set([...this.#owned.values()].map((r) => r.targetSet));
    this.#balance.record(
      now,
      this.#counters()!,
      packetsPerTargetSet(document, this.#dataPlane.counts().tsaPackets),
    );
    this.#throttle.record(now, this.#dataPlane.counts().ports);
    const inputs: AlarmInputs = {
      slot: this.slot,
      document,
      status,
      ownedSets,
      dataPath: this.#dataPlane.kind,
      forwards: this.#dataPlane.protocols,
      bgp: this.#bgp && {
        failure: this.#bgp.failure,
        downSessions: this.#bgp.downSessions(BGP_GRACE_MS),
      },
      addressFailures: this.#addresses?.failures() ?? [],
      linkDown: this.#link?.state.down
        ? { device: this.#link.state.device, reason: this.#link.state.down }
        : null,
      bindFailures: this.#dataPlane.bindFailures?.() ?? [],
      rulesError: this.#dataPlane.rulesError?.() ?? null,
      stateSync:
        this.#conntrackSync?.failure() ??
        (this.#dataPlane.flowSharing && this.#mate.address
          ? this.#mateLink.flowSharingFailure(now)
          : null),
      outOfBalance: this.#balance.outOfBalance(
        status,
        ownedSets,
        document.config.options.imbalanceThresholdPct,
        document.config.options.imbalanceMinPps,
      ),
      host: this.#host && { readings: this.#host, thresholds: this.#hostThresholds },
      ports: this.#throttle.loads(),
      isActive: (code, server) => this.alarms.isActive(code, server),
      now,
    };
    for (const rule of ALARM_RULES) this.alarms.reconcile(rule.code, rule.wanted(inputs));
    // Read for the next evaluation: the files of /proc answer at once, but not synchronously.
    void this.#hostWatch.read(now).then((readings) => (this.#host = readings));
  }

  #counters(): EngineCounters | null {
    return countersView(this.#engine?.counters() ?? null, this.#dataPlane.counts(), this.#document);
  }

  status(): AgentStatus {
    const counts = this.#dataPlane.counts();
    const now = monotonic();
    return statusView({
      slot: this.slot,
      boot: this.boot,
      document: this.#document,
      appliedAt: this.#appliedAt,
      dataPath: {
        kind: this.#dataPlane.kind,
        forwards: this.#dataPlane.protocols,
        listening: this.#dataPlane.listening().map((l) => formatHostPort(l.tsa, l.port)),
        counts,
      },
      activeActive: Boolean(this.#bgp),
      mate: {
        slot: this.mate,
        alive: this.#mate.alive,
        heardAt: this.#mate.boot ? this.#mate.heardAt : null,
      },
      owned: [...this.#owned.values()],
      engine: this.#engine?.status(now) ?? null,
      liveCounters: counts.servers ? this.#counters() : null,
      monitoring: this.#monitor.watching(),
      alarms: this.alarms.active(),
      alarmHistory: this.alarms.history().slice(-50),
      counts: {
        configApplies: this.counts.configApplies,
        configRejects: this.counts.configRejects,
        failovers: this.counts.failovers,
        heartbeats: sum(this.counts.heartbeats),
        malformedHeartbeats: sum(this.counts.malformedHeartbeats),
      },
      bgp: this.#bgp?.status() ?? null,
      measurements: measurementsView(
        this.#document,
        this.#counters(),
        counts.measured,
        this.#accounting(),
      ),
      now,
      wallNow: Date.now(),
    });
  }

  /** SIGTERM: stop accepting, let open connections finish for a bounded time, close everything. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#tick) clearInterval(this.#tick);
    this.#link?.close();
    await this.#reconciling;
    this.#mateLink.close();
    this.#relay.close();
    // Withdrawn first: the routers send the flows to the other IPFEs of the group at once.
    await this.#bgp?.stop();
    await this.#dataPlane.stop(
      async () => this.#addresses?.releaseAll(),
      this.options.drainTimeoutMs ?? 10_000,
    );
    await this.#conntrackSync?.stop();
    this.#guard?.dismiss();
    this.#monitor.close();
  }
}

/** A 32-bit hash seed both mates derive alike from the secret they share, unknown to clients. */
function hashSeedOf(token: string): number {
  return createHmac('sha256', token).update('ipfe kernel bucket hash').digest().readUInt32BE(0);
}

const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

export type { Alarm };
