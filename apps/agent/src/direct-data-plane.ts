import { adoption, type Adoption, type ForwardingPlan } from '@ipfe/engine';
import type { Logger } from 'pino';
import type {
  DataPathCounts,
  DataPlane,
  MateFlowSharing,
  PortPackets,
  Measured,
  ServeChange,
} from './data-plane.ts';
import { listenersOf } from './data-plane.ts';
import { NftPath } from './data-plane-skeleton.ts';
import {
  COUNTED_SETS,
  EMPTY_TABLE,
  renderDirectScript,
  withServerIds,
  type DirectTableState,
  type MateRecord,
} from './direct-nft-script.ts';
import { activeOf, countersOf, recordsOf } from './direct-reads.ts';
import type { ExitGuard } from './exit-guard.ts';
import { ByServer } from './by-server.ts';
import { FlowSharing } from './flow-sharing.ts';
import type { SharedFlow } from './mate-link.ts';
import { listSets, nextReadAt, type NftSetElement } from './nft.ts';
import { MEASURED_SETS, measuredOf } from './nft-measurements.ts';

const REFRESH_EVERY_MS = 250;
/**
 * How often the records are read (listing them costs in proportion to their number): for a mate
 * to tell of new flows, every 250 ms within 5 % of a core; with none, only for the count of open
 * connections per server on the Status page, every 5 s within 1 %. The counters (opened, refused,
 * bytes: a few elements per TSA and server) are read every second in between.
 */
const RECORD_READS = {
  forMate: { everyMs: 250, shareOfCore: 0.05 },
  alone: { everyMs: 5000, shareOfCore: 0.01 },
};
const COUNTER_READS = { everyMs: 1000, shareOfCore: 0.02 };

export interface DirectDeps {
  slot: string;
  /** The XSI interface: packets to the TSAs arrive here and leave here for the servers. */
  device: string;
  log: Logger;
  now(): number;
  /** Bytes forwarded per TSA (in: client to server; replies never cross this node). */
  bytes?: Map<string, { in: number; out: number }>;
  /** The seed of the bucket hash, the same on both mates (see KernelDeps.hashSeed). */
  hashSeed: number;
  guard?: ExitGuard | null;
  /** Tells the mate of flows and where they go (it takes them over with the TSA). */
  shareFlows?(flows: SharedFlow[]): void;
  /** Whether this node has a mate to tell (else its records are read for the counts alone). */
  hasMate?(): boolean;
  /** Options › Accounting: the measurements (nft-measurements.ts) are counted only while it is on. */
  accounting(): boolean;
}

/**
 * The transparent data path: a layer-3 forwarder that rewrites nothing (the source product's
 * IPFE), rendered by `renderDirectScript` into an nftables `netdev` ingress chain on the XSI
 * interface. This class keeps its lifecycle: it renders the plan before the TSAs are announced,
 * reads the records and counters on a timer of its own, and tells the mate of its flows, whose
 * own it keeps (`FlowSharing`) and puts into its records when it takes a TSA over.
 */
export class DirectDataPlane implements DataPlane {
  readonly kind = 'direct' as const;
  readonly protocols = ['tcp', 'sctp'] as const;
  /** Established connections without a record (the mate's) go by the table: the engine's size. */
  readonly tableSizing = 'full' as const;
  /** A standby's tables are loaded before it takes over (65,537 buckets take a while). */
  readonly rendersStandby = true;
  readonly flowSharing: MateFlowSharing = {
    fromMate: (flows) => this.#flows.fromMate(flows, this.deps.now()),
    mateReset: () => {
      this.#flows.mateReset();
      this.#nextCount = 0;
      this.#nextRecords = 0;
    },
  };
  readonly #path: NftPath;
  #servedTsas = new Set<string>();
  #table: DirectTableState = EMPTY_TABLE;
  #serverIds = new Map<string, number>();
  #gainedAt = new Map<string, number>();
  #plan: ForwardingPlan | null = null;
  #nextCount = 0;
  #nextRecords = 0;
  #reader: NodeJS.Timeout | null = null;
  #reading = false;
  #active = new ByServer<number>();
  #opened = new ByServer<number>();
  #ports = new Map<number, PortPackets>();
  #tsaPackets = new Map<string, number>();
  #refused = new Map<number, number>();
  #measured: Measured = {
    rxBytes: new Map(),
    rxSctpBytes: new Map(),
    txBytes: new ByServer(),
    unexpectedTcp: new Map(),
    unexpectedSctp: new Map(),
  };
  #connections = 0;
  readonly #flows = new FlowSharing();

  constructor(private readonly deps: DirectDeps) {
    this.#path = new NftPath({
      family: 'netdev',
      slot: deps.slot,
      log: deps.log,
      guard: deps.guard,
      refreshEveryMs: REFRESH_EVERY_MS,
      now: deps.now,
    });
  }

  /** The rules are in place before the TSAs are announced. */
  async serve(plan: ForwardingPlan, change: ServeChange): Promise<void> {
    const now = this.deps.now();
    this.#servedTsas = new Set(change.served);
    for (const tsa of change.gained) {
      this.#gainedAt.set(tsa, now);
      this.#flows.gained(tsa);
    }
    if (this.#path.serveDue(plan, change.served)) await this.#render(plan);
    await change.hold();
  }

  async refresh(plan: () => ForwardingPlan): Promise<void> {
    if (this.#path.refreshDue()) await this.#render(plan());
  }

  async #render(plan: ForwardingPlan) {
    const now = this.deps.now();
    this.#plan = plan;
    this.#path.want(
      [...listenersOf(plan, 'tcp'), ...listenersOf(plan, 'sctp')].filter((l) =>
        this.#servedTsas.has(l.tsa),
      ),
    );
    this.#reader ??= setInterval(() => void this.#read(), RECORD_READS.forMate.everyMs);
    this.#serverIds = withServerIds(this.#serverIds, plan);
    this.#flows.forgetExpired(now);
    const adoptions = new Map<string, Adoption>();
    const mateRecords = new Map<string, MateRecord[]>();
    const recording: string[] = [];
    for (const p of plan.tsas) {
      const a = adoption(p, this.#gainedAt.get(p.tsa), now);
      adoptions.set(p.tsa, a);
      if (!a.mateRecords) continue;
      const { records, keys } = this.#flows.toRecord(p, now);
      mateRecords.set(p.tsa, records);
      recording.push(...keys);
      if (records.length > 0)
        this.deps.log.info({ tsa: p.tsa, flows: records.length }, 'taking over the mate’s flows');
    }
    const { script, state } = renderDirectScript(plan, {
      table: this.#path.table,
      device: this.deps.device,
      hashSeed: this.deps.hashSeed,
      serverIds: this.#serverIds,
      adoption: adoptions,
      mateRecords,
      previous: this.#table,
      accounting: this.deps.accounting(),
    });
    if (await this.#path.nft.apply(script)) {
      this.#flows.recorded(recording);
      this.#table = state;
    } else {
      // What the maps hold is unknown now: sent whole next time.
      this.#table = { ...this.#table, mapContents: new Map() };
    }
  }

  /**
   * Reads the records on a timer of its own: a slow nft transaction (a new table of 65,537
   * buckets) must not hold back telling the mate of new flows.
   */
  async #read() {
    const now = this.deps.now();
    if (this.#reading || now < this.#nextCount) return;
    const records = now >= this.#nextRecords;
    this.#reading = true;
    try {
      await this.#count(now, records);
    } finally {
      this.#reading = false;
      const done = this.deps.now();
      if (records) {
        // The counters' own cost is not known from a read of the records too.
        const pace = this.deps.hasMate?.() ? RECORD_READS.forMate : RECORD_READS.alone;
        this.#nextRecords = nextReadAt(now, done, pace);
        this.#nextCount = Math.min(now + COUNTER_READS.everyMs, this.#nextRecords);
      } else {
        this.#nextCount = Math.min(nextReadAt(now, done, COUNTER_READS), this.#nextRecords);
      }
    }
  }

  /**
   * The counters (opened, refused, bytes in, the measurements), and with `records` the flow
   * records: open flows per server, and what to tell the mate. Without, the last read's open flows
   * stand.
   */
  async #count(now: number, records: boolean) {
    const plan = this.#plan;
    if (!plan || !this.#path.nft.programmed) return;
    const names = [...this.#table.sets].filter(
      (name) => records || COUNTED_SETS.has(name) || MEASURED_SETS.includes(name),
    );
    const listed = await listSets('netdev', this.#path.table, names);
    if (!listed) {
      this.#path.nft.forget(); // the table is gone: program it again
      this.#table = { ...this.#table, mapContents: new Map() };
      return;
    }
    const counters = countersOf(plan, this.#serverIds, listed);
    if (this.deps.bytes)
      for (const [tsa, bytes] of counters.bytesIn) {
        const entry = this.deps.bytes.get(tsa) ?? { in: 0, out: 0 };
        entry.in = bytes;
        this.deps.bytes.set(tsa, entry);
      }
    this.#opened = counters.opened;
    this.#refused = counters.refused;
    this.#ports = counters.ports;
    this.#tsaPackets = counters.packetsIn;
    this.#measured = measuredOf(plan, listed, (s) => this.#serverIds.get(s.address) ?? 0);
    if (records) this.#countRecords(plan, listed, now);
  }

  /** Open flows per server from the listed record sets, and the new ones told to the mate. */
  #countRecords(plan: ForwardingPlan, listed: Map<string, NftSetElement[]>, now: number) {
    const recordsByTsa = recordsOf(plan, this.#serverIds, listed);
    this.#flows.own([...recordsByTsa.values()].flat());
    const shareFlows = this.deps.shareFlows;
    if (shareFlows)
      for (const p of plan.tsas) {
        const records = recordsByTsa.get(p.tsa) ?? [];
        const flows = this.#flows.toTell(p, records, now);
        if (flows.length > 0) shareFlows(flows);
        this.deps.log.debug(
          { records: records.length, told: flows.length },
          'flows told to the mate',
        );
      }
    const { active, connections } = activeOf(plan, recordsByTsa);
    this.#active = active;
    this.#connections = connections;
  }

  counts(): DataPathCounts {
    const servers = this.#opened.map((opened, tsa, server) => ({
      active: this.#active.get(tsa, server) ?? 0,
      opened,
    }));
    return {
      connections: this.#connections,
      servers,
      refused: this.#refused,
      ports: this.#ports,
      tsaPackets: this.#tsaPackets,
      mateFlows: this.#flows.mateFlows,
      measured: this.#measured,
    };
  }

  rulesError() {
    return this.#path.rulesError();
  }

  listening() {
    return this.#path.listening();
  }

  /** The TSAs go first (the mate takes them with their flows), then the table. */
  async stop(release: () => Promise<void>): Promise<void> {
    if (this.#reader) clearInterval(this.#reader);
    this.#reader = null;
    await release();
    await this.#path.nft.remove();
  }
}
