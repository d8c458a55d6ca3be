import type { ForwardingPlan } from '@ipfe/engine';
import type { Logger } from 'pino';
import { ByServer } from './by-server.ts';
import type { ConntrackSync } from './conntrack-sync.ts';
import type { DataPathCounts, DataPlane, PortPackets, ServeChange } from './data-plane.ts';
import { listenersOf } from './data-plane.ts';
import { NftPath } from './data-plane-skeleton.ts';
import type { ExitGuard } from './exit-guard.ts';
import {
  conntrackFlows,
  forwardedKeys,
  OPENED_SETS,
  openedOf,
  pairsRemoved,
  renderKernelScript,
  serversByAddress,
  serversDropped,
} from './kernel-nft-script.ts';
import { listSets, nextReadAt, nftId, readCounters, run } from './nft.ts';
import { MEASURED_SETS, measuredOf } from './nft-measurements.ts';
import type { Measured } from './data-plane.ts';

const REFRESH_EVERY_MS = 500;
/**
 * How often conntrack is listed (costly: a flood leaves thousands of entries), and, apart from
 * it, the nft counters (cheap), which the rate limit's alarms need every second whatever
 * conntrack holds.
 */
const COUNT_READS = { everyMs: 1000, shareOfCore: 0.02 };
const COUNTER_READS = { everyMs: 1000, shareOfCore: 0.05 };
const COUNTED_SETS = [...Object.values(OPENED_SETS), ...MEASURED_SETS];

export interface KernelDeps {
  slot: string;
  log: Logger;
  /** Shares conntrack state with the mate (`--sync-conntrack`), when configured. */
  conntrackSync?: ConntrackSync | null;
  now(): number;
  /** Bytes forwarded per TSA (in: client to server, out: back), kept up to date from nftables. */
  bytes?: Map<string, { in: number; out: number }>;
  /**
   * The seed of the bucket hash, the same on both mates (derived from their shared secret), so
   * that both send a client's new connection to the same server: the kernel's default is a random
   * seed per rule, and the mates' choices would differ for half the clients.
   */
  hashSeed: number;
  /** Removes the table should the agent die without a clean stop. */
  guard?: ExitGuard | null;
  /** Options › Accounting: the measurements (nft-measurements.ts) are counted only while it is on. */
  accounting(): boolean;
}

/**
 * The kernel data path (SPEC §4.2): the engine decides, nftables forwards (the script:
 * kernel-nft-script.ts). Every change replaces the agent's own table in one `nft -f`
 * transaction; open connections keep their server through conntrack, also across an agent
 * restart.
 */
export class KernelDataPlane implements DataPlane {
  readonly kind = 'kernel' as const;
  readonly protocols = ['tcp'] as const;
  /** conntrack remembers established connections: the table only chooses new ones. */
  readonly tableSizing = 'compact' as const;
  readonly rendersStandby = false;
  readonly #path: NftPath;
  #states = new Map<string, string>();
  #connections = 0;
  /** Open flows per TSA and server, from conntrack; new connections, from nftables. */
  #flows = new ByServer<Set<string>>();
  #opened = new ByServer<number>();
  #nextCount = 0;
  #nextCounterRead = 0;
  #refused = new Map<number, number>();
  #ports = new Map<number, PortPackets>();
  #tsaPackets = new Map<string, number>();
  #measured: Measured = NOTHING_MEASURED_YET;
  /** "TSA|address" pairs the applied configuration forwards, and its revision. */
  #pairs: Set<string> | null = null;
  #pairsRevision = -1;

  constructor(private readonly deps: KernelDeps) {
    this.#path = new NftPath({
      family: 'inet',
      slot: deps.slot,
      log: deps.log,
      guard: deps.guard,
      refreshEveryMs: REFRESH_EVERY_MS,
      now: deps.now,
    });
  }

  /**
   * The mate's connections and the forwarding rules are in place before the address is
   * announced, so that nothing arriving after the announcement is refused.
   */
  async serve(plan: ForwardingPlan, change: ServeChange): Promise<void> {
    if (change.gained.length > 0)
      await this.deps.conntrackSync?.takeOver(change.gained, { mateAlive: change.mateAlive });
    if (this.#path.serveDue(plan, change.served)) await this.#render(plan);
    await change.hold();
  }

  /** Reprograms when the decision changed (servers, weights, states, loads); at most twice a second. */
  async refresh(plan: () => ForwardingPlan): Promise<void> {
    if (this.#path.refreshDue()) await this.#render(plan());
  }

  async #render(plan: ForwardingPlan): Promise<void> {
    const now = this.deps.now();
    this.#path.want(listenersOf(plan, 'tcp'));
    // The rules first: once a server's or a pair's connections are deleted, nothing new may still
    // be sent there by the rules before them (a new connection would reach an offline server).
    await this.#path.nft.apply(
      renderKernelScript(plan, {
        table: this.#path.table,
        hashSeed: this.deps.hashSeed,
        accounting: this.deps.accounting(),
      }),
    );
    await this.#deleteConnectionsTheConfigRemoved(plan);
    for (const { address, state } of serversDropped(this.#states, plan)) {
      await deleteEntries(['--reply-src', address]);
      this.deps.log.info({ server: address, state }, 'conntrack entries of the server deleted');
    }
    if (now >= this.#nextCounterRead) {
      await this.#readCounters();
      await this.#readCountedSets(plan);
      this.#nextCounterRead = nextReadAt(now, this.deps.now(), COUNTER_READS);
    }
    const countFrom = this.deps.now();
    if (countFrom >= this.#nextCount) {
      await this.#countFlows(plan);
      this.#nextCount = nextReadAt(countFrom, this.deps.now(), COUNT_READS);
    }
  }

  #servedTsas(): Set<string> {
    return new Set(this.#path.wanted.map((l) => l.tsa));
  }

  /** Open connections per TSA and server, read from conntrack. */
  async #countFlows(plan: ForwardingPlan) {
    const next = new ByServer<Set<string>>();
    let total = 0;
    for (const tsa of this.#servedTsas()) {
      const { stdout } = await run('conntrack', ['-L', '-p', 'tcp', '--orig-dst', tsa], {
        maxBuffer: 256 * 1024 * 1024,
      }).catch(() => ({ stdout: '' }));
      for (const { server, flow } of conntrackFlows(tsa, stdout, serversByAddress(plan, tsa))) {
        let set = next.get(tsa, server);
        if (!set) next.set(tsa, server, (set = new Set()));
        set.add(flow);
        total++;
      }
    }
    this.#flows = next;
    this.#connections = total;
  }

  /**
   * The named counters: new connections refused per Target Set (no server takes new ones), and
   * bytes per TSA and direction.
   */
  async #readCounters() {
    const counters = await readCounters('inet', this.#path.table);
    if (!counters) {
      // The table is gone (someone deleted it): program it again at the next refresh.
      this.#path.nft.forget();
      return;
    }
    const refused = new Map<number, number>();
    const ports = new Map<number, PortPackets>();
    const tsaPackets = new Map<string, number>();
    const tsas = new Map([...this.#servedTsas()].map((t) => [nftId(t), t]));
    for (const counter of counters) {
      const port = /^(pkts|throttled)_(\d+)$/.exec(counter.name);
      if (port) {
        const entry = ports.get(Number(port[2])) ?? { packets: 0, dropped: 0 };
        entry[port[1] === 'pkts' ? 'packets' : 'dropped'] = counter.packets;
        ports.set(Number(port[2]), entry);
        continue;
      }
      const match = /^(refused|in|out)_(.+)$/.exec(counter.name);
      if (match?.[1] === 'refused') refused.set(Number(match[2]), counter.packets);
      const tsa = match && match[1] !== 'refused' ? tsas.get(match[2]!) : undefined;
      if (tsa && match![1] === 'in') tsaPackets.set(tsa, counter.packets);
      if (tsa && this.deps.bytes) {
        const entry = this.deps.bytes.get(tsa) ?? { in: 0, out: 0 };
        entry[match![1] as 'in' | 'out'] = counter.bytes;
        this.deps.bytes.set(tsa, entry);
      }
    }
    this.#refused = refused;
    this.#ports = ports;
    this.#tsaPackets = tsaPackets;
  }

  /**
   * The counted sets, by the plan being served: new connections per server, and the
   * measurements (nft-measurements.ts).
   */
  async #readCountedSets(plan: ForwardingPlan) {
    if (!this.#path.nft.programmed) return;
    const listed = await listSets('inet', this.#path.table, COUNTED_SETS);
    if (!listed) return;
    this.#opened = openedOf(plan, listed);
    // Sets of a family the plan does not have are not there: what is listed is what is counted.
    this.#measured = measuredOf(plan, listed, (s) => s.address);
  }

  /**
   * Connections in conntrack, per TSA and server, and new ones since the table was made;
   * refusals per Target Set since the start.
   */
  counts(): DataPathCounts {
    const servers = this.#opened.map((opened, tsa, server) => ({
      active: this.#flows.get(tsa, server)?.size ?? 0,
      opened,
    }));
    return {
      connections: this.#connections,
      servers,
      refused: this.#refused,
      ports: this.#ports,
      tsaPackets: this.#tsaPackets,
      measured: this.#measured,
    };
  }

  /** A new configuration closes the connections it removes (SPEC §4.1): their entries go. */
  async #deleteConnectionsTheConfigRemoved(plan: ForwardingPlan) {
    if (plan.revision < 0 || plan.revision === this.#pairsRevision) return;
    const before = this.#pairs;
    this.#pairs = forwardedKeys(plan);
    this.#pairsRevision = plan.revision;
    for (const { tsa, address } of pairsRemoved(before, this.#pairs)) {
      await deleteEntries(['--orig-dst', tsa, '--reply-src', address]);
      this.deps.log.info(
        { tsa, server: address },
        'conntrack entries the configuration removed deleted',
      );
    }
  }

  rulesError() {
    return this.#path.rulesError();
  }

  listening() {
    return this.#path.listening();
  }

  /**
   * The address goes first: without the table, a packet to a TSA still on this node would reach
   * the node's own stack, which resets its connection. (The mate or the restarted agent carries
   * the connections on; conntrack keeps them.) Then the table goes.
   */
  async stop(release: () => Promise<void>): Promise<void> {
    await release();
    await this.#path.nft.remove();
  }
}

/** Every measurement counted, none yet: what the kernel path reports before its first read. */
const NOTHING_MEASURED_YET: Measured = {
  rxBytes: new Map(),
  rxSctpBytes: new Map(),
  txBytes: new ByServer(),
  unexpectedTcp: new Map(),
  unexpectedSctp: new Map(),
};

/** Deletes the TCP conntrack entries matching these filters (none matching is not an error). */
async function deleteEntries(filters: string[]) {
  await run('conntrack', ['-D', '-p', 'tcp', ...filters]).catch(() => undefined);
}
