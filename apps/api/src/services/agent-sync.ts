import {
  agentStatusSchema,
  IPFE_SLOTS,
  type AgentStatus,
  type ConfigDocument,
  type Configuration,
  type IpfeSlot,
  type IpfeSlotSync,
  type TargetSet,
} from '@ipfe/schema';
import type { FastifyBaseLogger } from 'fastify';
import type { ConfigRepository } from '../repositories/config-repository.ts';
import type { AgentSyncRepository, SyncRecord } from '../repositories/agent-sync-repository.ts';
import { createAgentClient, type AgentClient } from './agent-client.ts';
import { unservedOf } from '../domain/serving.ts';
import { AlarmMirror } from './alarm-mirror.ts';
import {
  keepSample,
  measurementsView,
  type MeasurementSample,
  type SampleWindow,
} from '../domain/measurement-rates.ts';
import {
  initialSync,
  nextSync,
  type Backoff,
  type SyncEvent,
  type SyncSlot,
  type SyncStep,
} from './sync-state.ts';

export interface AgentSyncOptions {
  token: string;
  /** How often each agent's status is read (default 1 s). */
  pollIntervalMs: number;
  requestTimeoutMs: number;
  /** Retry backoff: doubles from min to max, with jitter. */
  backoffMinMs: number;
  backoffMaxMs: number;
  /**
   * How long an agent not reached yet since the OAM started may stay silent before it is alarmed
   * unreachable (IPFE_AGENT_START_GRACE_MS); one reached once is alarmed at once.
   */
  startGraceMs: number;
  /** PEM of the CA that signed the agents' certificates: the agents are then spoken to over HTTPS. */
  agentCa?: string;
  /** How long the agents' measurements are kept, one sample per step (default 1 h, 10 s). */
  measurementWindow: SampleWindow;
}

/** How a push ended (its answer, or none) and how long it took: what the OAM's metrics count. */
export interface PushOutcome {
  slot: IpfeSlot;
  outcome: 'applied' | 'rejected' | 'stale' | 'timeout' | 'failed';
  seconds: number;
}

interface Slot {
  sync: SyncSlot;
  target: string | null;
  timer: NodeJS.Timeout | null;
  status: AgentStatus | null;
  /** The agent's measurements of the last window, oldest first. */
  measurements: readonly MeasurementSample[];
}

/**
 * Pushes every committed revision to each configured IPFE agent and reads back what each runs
 * (SPEC §4.1, §5). What to do is decided by `nextSync` (sync-state.ts); this class only keeps the
 * timers and speaks HTTP. Each slot has its own retry timer and in-flight request, so a slow or
 * dead agent delays nobody: not a commit, not another agent, not the GUI.
 *
 * Only the leader of a cluster of OAMs (decision 022) pushes, stores push state and mirrors
 * alarms; a follower reads the agents' status for its own pages and the push state as the leader
 * stored it. Each term of leadership goes on from the push state stored by the term before.
 */
export class AgentSync {
  #slots = new Map<IpfeSlot, Slot>();
  #poll: NodeJS.Timeout | null = null;
  #stopped = false;
  #leading = false;
  /** Counts the changes of role: an answer to a push of an earlier term is not this term's. */
  #term = 0;
  /** The latest revision as last read: a poll that finds another commits has missed its notice. */
  #latestSeen: number | null = null;
  readonly #startGrace: { startedAt: number; graceMs: number };
  readonly #pushListeners: ((push: PushOutcome) => void)[] = [];
  readonly #client: AgentClient;
  readonly #alarms: AlarmMirror;
  readonly #backoff: Backoff;
  /**
   * The store's writes of the state machine (push state, alarms), one after the other in the order
   * they were decided, so that none overtakes an earlier one; `stop` waits for them.
   */
  #writes: Promise<void> = Promise.resolve();
  /** The reads of the latest revision after each commit, one after the other. */
  #commits: Promise<void> = Promise.resolve();

  /** The service with each slot's push state as stored. */
  static async create(
    configs: ConfigRepository,
    repository: AgentSyncRepository,
    options: AgentSyncOptions,
    log: FastifyBaseLogger,
  ): Promise<AgentSync> {
    const records = new Map<IpfeSlot, SyncRecord>();
    for (const slot of IPFE_SLOTS) records.set(slot, await repository.get(slot));
    return new AgentSync(configs, repository, records, options, log);
  }

  private constructor(
    private readonly configs: ConfigRepository,
    private readonly repository: AgentSyncRepository,
    records: Map<IpfeSlot, SyncRecord>,
    private readonly options: AgentSyncOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.#client = createAgentClient({ ca: options.agentCa });
    this.#alarms = new AlarmMirror(repository);
    this.#backoff = { minMs: options.backoffMinMs, maxMs: options.backoffMaxMs };
    this.#startGrace = { startedAt: Date.now(), graceMs: options.startGraceMs };
    for (const slot of IPFE_SLOTS) {
      this.#slots.set(slot, {
        sync: initialSync(records.get(slot)!, this.#backoff, this.#startGrace),
        target: null,
        timer: null,
        status: null,
        measurements: [],
      });
    }
  }

  /** Starts reading the agents' status (every OAM does, for its own pages). */
  async start(): Promise<void> {
    this.revisionCommitted();
    await this.#commits;
    this.#poll = setInterval(() => void this.#pollAll(), this.options.pollIntervalMs);
    void this.#pollAll();
  }

  /** This OAM became the leader: it pushes from the push state as stored, and mirrors alarms. */
  async lead(): Promise<void> {
    if (this.#leading || this.#stopped) return;
    this.#leading = true;
    const term = ++this.#term;
    for (const slotName of IPFE_SLOTS) {
      const record = await this.repository.get(slotName);
      if (term !== this.#term) return;
      const slot = this.#slots.get(slotName)!;
      slot.sync = initialSync(record, this.#backoff, this.#startGrace);
    }
    this.revisionCommitted();
    await this.#commits;
  }

  /** This OAM is no longer the leader: it pushes nothing more and stores nothing. */
  follow(): void {
    if (!this.#leading) return;
    this.#leading = false;
    this.#term++;
    for (const slot of this.#slots.values()) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = null;
    }
  }

  get leading(): boolean {
    return this.#leading;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#poll) clearInterval(this.#poll);
    for (const s of this.#slots.values()) if (s.timer) clearTimeout(s.timer);
    await this.#commits;
    await this.#writes;
    await this.#client.close();
  }

  /** Runs `write` after the writes before it; a failure is logged (the next step tries again). */
  #write(what: string, write: () => Promise<void>): void {
    this.#writes = this.#writes.then(write).catch((err: unknown) => {
      this.log.error({ err }, `could not store ${what}`);
    });
  }

  /** A new revision exists (or the agents' addresses changed): every configured agent gets it. */
  revisionCommitted(): void {
    this.#commits = this.#commits
      .then(() => this.#latestCommitted())
      .catch((err: unknown) => this.log.error({ err }, 'could not read the latest revision'));
  }

  async #latestCommitted(): Promise<void> {
    const running = await this.configs.running();
    const latest = running.number === 0 ? null : running.number;
    this.#latestSeen = running.number;
    const config = running.config;
    for (const [slotName, slot] of this.#slots) {
      slot.target = targetOf(config, slotName, this.#client.scheme);
      if (!slot.target) {
        slot.status = null;
        slot.measurements = [];
      }
      this.#step(slotName, { kind: 'commit', latest, configured: slot.target !== null });
    }
  }

  /** Tells `listener` of each alarm raised or cleared in the alarm log (SNMP traps). */
  onAlarm(listener: Parameters<AlarmMirror['onAlarm']>[0]): void {
    this.#alarms.onAlarm(listener);
  }

  /** Tells `listener` of every push once it is answered (or times out or fails). */
  onPushAnswered(listener: (push: PushOutcome) => void): void {
    this.#pushListeners.push(listener);
  }

  /**
   * Feeds one event to the slot's state machine and carries out what it decides; on a follower,
   * nothing (null).
   */
  #step(slotName: IpfeSlot, event: SyncEvent): SyncStep | null {
    if (!this.#leading) return null;
    const slot = this.#slots.get(slotName)!;
    const now = Date.now();
    const step = nextSync(slot.sync, event, now, this.#backoff);
    slot.sync = step.slot;
    if (step.save) {
      const record = step.slot.record;
      this.#write('the push state', () => this.repository.save(record));
    }
    if (step.note) {
      this.log.info({ slot: slotName, revision: step.slot.record.desiredRevision }, step.note);
    }
    if (step.unreachable !== null) {
      const error = step.unreachable;
      this.#write('an alarm', () =>
        this.#alarms.unreachable(slotName, error, new Date(now).toISOString()),
      );
    }
    if (step.push.kind !== 'none' && !this.#stopped) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = setTimeout(
        () => {
          slot.timer = null;
          void this.#due(slotName);
        },
        step.push.kind === 'now' ? 0 : step.push.ms,
      );
    }
    return step;
  }

  async #due(slotName: IpfeSlot) {
    if (this.#stopped) return;
    const desired = this.#slots.get(slotName)!.sync.record.desiredRevision;
    let document: ConfigDocument | null;
    try {
      document = desired === null ? null : await this.configs.document(desired);
    } catch (err) {
      this.log.error({ err, slot: slotName }, 'could not read the revision to push');
      return;
    }
    // A commit meanwhile has a push of its own scheduled: this one is of an older revision.
    if (this.#stopped || this.#slots.get(slotName)!.sync.record.desiredRevision !== desired) return;
    const send = this.#step(slotName, { kind: 'due', stored: document !== null })?.send ?? null;
    if (send !== null && document) void this.#push(slotName, document);
  }

  async #push(slotName: IpfeSlot, document: ConfigDocument): Promise<void> {
    const target = this.#slots.get(slotName)!.target!;
    const revision = document.revision;
    const term = this.#term;
    const started = performance.now();
    let event: Extract<SyncEvent, { kind: PushOutcome['outcome'] }>;
    try {
      const response = await this.#client.call('PUT', `${target}/v1/config`, {
        token: this.options.token,
        body: JSON.stringify(document),
        timeoutMs: this.options.requestTimeoutMs,
      });
      const { status } = response;
      if (status === 200) {
        event = { kind: 'applied', sha256: document.sha256 };
        this.log.info({ slot: slotName, revision }, 'agent applied revision');
      } else if (status === 422 || status === 409 || status === 401) {
        const error =
          status === 401 ? 'The agent refused the deployment token' : messageOf(response.text);
        event = status === 409 ? { kind: 'stale', error } : { kind: 'rejected', error };
        this.log.warn({ slot: slotName, revision, status, error }, 'agent rejected revision');
      } else {
        event = { kind: 'failed', error: `HTTP ${status}`, jitter: Math.random() };
      }
    } catch (err) {
      event =
        (err as Error).name === 'TimeoutError'
          ? { kind: 'timeout', jitter: Math.random() }
          : { kind: 'failed', error: causeOf(err), jitter: Math.random() };
    }
    if (term !== this.#term) return;
    this.#step(slotName, event);
    const seconds = (performance.now() - started) / 1000;
    for (const listener of this.#pushListeners)
      listener({ slot: slotName, outcome: event.kind, seconds });
  }

  async #pollAll(): Promise<void> {
    // A commit of another OAM whose notice was not heard (its connection was down) shows here.
    const latest = await this.configs.latestInfo().catch(() => undefined);
    if (latest !== undefined && (latest?.number ?? 0) !== this.#latestSeen)
      this.revisionCommitted();
    await Promise.all([...this.#slots.keys()].map((slot) => this.#pollOne(slot)));
    if (!this.#leading) await this.#readPushState();
  }

  /** On a follower: the push state as the leader stored it, for this OAM's pages. */
  async #readPushState(): Promise<void> {
    for (const [slotName, slot] of this.#slots) {
      const record = await this.repository.get(slotName).catch(() => null);
      if (!record || this.#leading) return;
      slot.sync = { ...slot.sync, record };
    }
  }

  async #pollOne(slotName: IpfeSlot): Promise<void> {
    const slot = this.#slots.get(slotName)!;
    if (this.#stopped || !slot.target) return;
    let status: AgentStatus;
    try {
      const response = await this.#client.call('GET', `${slot.target}/v1/status`, {
        token: this.options.token,
        timeoutMs: this.options.requestTimeoutMs,
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      status = agentStatusSchema.parse(JSON.parse(response.text));
      if (status.slot !== slotName) throw new Error(`answered as ${status.slot}`);
    } catch (err) {
      slot.status = null;
      this.#step(slotName, { kind: 'silent', error: causeOf(err) });
      return;
    }
    slot.status = status;
    if (status.measurements) {
      const sample = { at: Date.now(), boot: status.boot, measurements: status.measurements };
      slot.measurements = keepSample(slot.measurements, sample, this.options.measurementWindow);
    }
    if (!this.#leading) return;
    const desired = slot.sync.record.desiredRevision;
    const desiredSha256 =
      desired !== null && status.revision === desired
        ? ((await this.configs.document(desired).catch(() => null))?.sha256 ?? null)
        : null;
    const { revision, sha256, boot } = status;
    this.#step(slotName, { kind: 'status', revision, sha256, boot, desiredSha256 });
    if (!this.#leading) return;
    const now = new Date().toISOString();
    this.#write('the alarms', () => this.#alarms.reported(slotName, status, now));
  }

  /** Per slot: configuration, push state and what the agent reported last. */
  view(config: Configuration): IpfeSlotSync[] {
    return IPFE_SLOTS.map((slotName) => {
      const slot = this.#slots.get(slotName)!;
      const node = config.options.ipfe[slotName];
      const r = slot.sync.record;
      return {
        slot: slotName,
        configured: Boolean(node),
        address: node?.address ?? null,
        agentPort: node?.agentPort ?? null,
        state: node ? r.state : 'not configured',
        desiredRevision: node ? r.desiredRevision : null,
        appliedRevision: node ? r.appliedRevision : null,
        rejected:
          node && r.rejectedRevision !== null && r.rejectedRevision === r.desiredRevision
            ? { revision: r.rejectedRevision, error: r.rejectedError ?? '' }
            : null,
        lastError: node ? r.lastError : null,
        lastContact: node ? r.lastContact : null,
        owned: slot.status?.owned ?? [],
        mateAlive: slot.status?.mate.alive ?? null,
        dataplane: slot.status?.dataplane ?? null,
        forwards: slot.status?.forwards ?? null,
        connections: slot.status?.connections ?? null,
      };
    });
  }

  /** The slot that serves a TSA now, by what the agents report (the active role wins a tie). */
  ownerOf(tsa: string): IpfeSlot | null {
    let standby: IpfeSlot | null = null;
    for (const [slotName, slot] of this.#slots) {
      const owned = slot.status?.owned.find((o) => o.tsa === tsa);
      if (owned?.role === 'active') return slotName;
      if (owned) standby = slotName;
    }
    return standby;
  }

  /** The reporting agents' live view of a Target Set: from the agent that serves its primary TSA. */
  liveTargetSet(number: number, tsa: string) {
    const owner = this.ownerOf(tsa);
    const status = owner ? this.#slots.get(owner)!.status : null;
    return { owner, targetSet: status?.targetSets.find((t) => t.number === number) ?? null };
  }

  /** Why no IPFE serves a Target Set of the running configuration now (its first unserved TSA). */
  notServed(ts: TargetSet, running: Configuration): string | null {
    const [first] = unservedOf(running, ts, this.statuses());
    return first ? `${first.tsa}: ${first.reason}` : null;
  }

  /** The measurements of the Target Sets of `config`: totals now, rates of the last window. */
  measurements(config: Configuration, now = Date.now()) {
    return measurementsView({
      targetSets: config.targetSets,
      accounting: config.options.accounting,
      rings: new Map([...this.#slots].map(([name, slot]) => [name, slot.measurements])),
      latest: new Map(
        [...this.#slots].map(([name, slot]) => [name, slot.status?.measurements ?? null]),
      ),
      now,
      window: this.options.measurementWindow,
    });
  }

  statuses(): Map<IpfeSlot, AgentStatus | null> {
    return new Map([...this.#slots].map(([name, slot]) => [name, slot.status]));
  }
}

function targetOf(config: Configuration, slot: IpfeSlot, scheme: 'http' | 'https'): string | null {
  const node = config.options.ipfe[slot];
  if (!node) return null;
  const host = node.address.includes(':') ? `[${node.address}]` : node.address;
  return `${scheme}://${host}:${node.agentPort}`;
}

function messageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } };
    return parsed.error?.message ?? body.slice(0, 300);
  } catch {
    return body.slice(0, 300);
  }
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? (err as { code?: string }).code ?? (err as Error).message ?? String(err);
}
