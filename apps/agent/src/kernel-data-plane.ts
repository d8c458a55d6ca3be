import net from 'node:net';
import type { ForwardingPlan, PlannedTsa } from '@ipfe/engine';
import type { ConfigDocument } from '@ipfe/schema';
import type { Logger } from 'pino';
import type { ConntrackSync } from './conntrack-sync.ts';
import type {
  BindFailure,
  DataPathCounts,
  DataPlane,
  Listener,
  ServeChange,
} from './data-plane.ts';
import { listenersOf } from './data-plane.ts';
import type { ExitGuard } from './exit-guard.ts';
import {
  bucketElements,
  NftTable,
  nextReadAt,
  nftId,
  readCounters,
  run,
  ServedPlan,
} from './nft.ts';

const REFRESH_EVERY_MS = 500;
/** Listing conntrack costs in proportion to its entries (TIME_WAIT ones too, two minutes of them at a high connection rate). */
const COUNT_READS = { everyMs: 1000, shareOfCore: 0.02 };

export interface KernelDeps {
  slot: string;
  log: Logger;
  document(): ConfigDocument | null;
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
}

/**
 * The kernel data path (SPEC §4.2): the engine decides, nftables forwards. Per served TSA and
 * port, new connections are DNATed through a bucket map hashed on source address and port (the
 * engine's Maglev table over the servers that take new connections; for Least Load, weights
 * scaled by spare load); the reply path is SNATed to the TSA. Every change replaces the agent's
 * own table in one `nft -f` transaction; open connections keep their server through conntrack,
 * also across an agent restart. Delete Age is a `ct timeout` policy per Target Set.
 */
export class KernelDataPlane implements DataPlane {
  readonly kind = 'kernel' as const;
  readonly protocols = ['tcp'] as const;
  /** conntrack remembers established connections: the table only chooses new ones. */
  readonly tableSizing = 'compact' as const;
  readonly rendersStandby = false;
  readonly #table: string;
  #wanted: Listener[] = [];
  readonly #nft: NftTable;
  #lastRefresh = 0;
  #served = new ServedPlan();
  #states = new Map<string, string>();
  #connections = 0;
  /** Open flows per "TSA|server", from conntrack; and flows seen so far, for `opened`. */
  #flows = new Map<string, Set<string>>();
  #opened = new Map<string, number>();
  #nextCount = 0;
  #refused = new Map<number, number>();
  /** "TSA|server" pairs the applied configuration forwards, and its revision. */
  #pairs: Set<string> | null = null;
  #pairsRevision = -1;

  constructor(private readonly deps: KernelDeps) {
    this.#table = `ipfe_${deps.slot.toLowerCase()}`;
    this.#nft = new NftTable('inet', this.#table, deps.log, deps.guard);
  }

  /**
   * The mate's connections and the forwarding rules are in place before the address is
   * announced, so that nothing arriving after the announcement is refused.
   */
  async serve(plan: ForwardingPlan, change: ServeChange): Promise<void> {
    if (change.gained.length > 0)
      await this.deps.conntrackSync?.takeOver(change.gained, { mateAlive: change.mateAlive });
    // A TSA gained or lost, or a new configuration, is rendered at once; the rest as refreshes are.
    await this.#render(plan, this.#served.changed(plan, change.served));
    await change.hold();
  }

  /** conntrackd shares this path's connections with the mate, not the mate link. */
  fromMate(): void {}
  mateReset(): void {}

  /** Reprograms when the decision changed (servers, weights, states, loads); at most twice a second. */
  async refresh(plan: () => ForwardingPlan): Promise<void> {
    if (this.deps.now() - this.#lastRefresh < REFRESH_EVERY_MS) return;
    await this.#render(plan(), false);
  }

  async #render(plan: ForwardingPlan, force: boolean): Promise<void> {
    const now = this.deps.now();
    if (!force && now - this.#lastRefresh < REFRESH_EVERY_MS) return;
    this.#lastRefresh = now;
    this.#wanted = listenersOf(plan, 'tcp');
    await this.#deleteConnectionsTheConfigRemoved();
    await this.#deleteConnectionsOfLostServers(plan);
    if (now >= this.#nextCount) {
      await this.#readCounters();
      await this.#countFlows();
      this.#nextCount = nextReadAt(now, this.deps.now(), COUNT_READS);
    }
    await this.#nft.apply(this.#script(plan));
  }

  /** Open connections per TSA and server, read from conntrack (the kernel path's counters). */
  async #countFlows() {
    const next = new Map<string, Set<string>>();
    let total = 0;
    for (const tsa of new Set(this.#wanted.map((l) => l.tsa))) {
      const { stdout } = await run('conntrack', ['-L', '-p', 'tcp', '--orig-dst', tsa], {
        maxBuffer: 256 * 1024 * 1024,
      }).catch(() => ({ stdout: '' }));
      for (const line of stdout.split('\n')) {
        const fields = [...line.matchAll(/(src|sport)=(\S+)/g)].map((m) => m[2]!);
        // Original src, sport, then the reply's src (the server) and sport.
        if (fields.length < 4 || line.includes('TIME_WAIT') || line.includes('CLOSE')) continue;
        const key = `${tsa}|${fields[2]}`;
        const flow = `${fields[0]}:${fields[1]}`;
        let set = next.get(key);
        if (!set) next.set(key, (set = new Set()));
        set.add(flow);
        total++;
        if (!this.#flows.get(key)?.has(flow))
          this.#opened.set(key, (this.#opened.get(key) ?? 0) + 1);
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
    const counters = await readCounters('inet', this.#table);
    if (!counters) {
      // The table is gone (someone deleted it): program it again at the next refresh.
      this.#nft.forget();
      return;
    }
    const refused = new Map<number, number>();
    const tsas = new Map([...new Set(this.#wanted.map((l) => l.tsa))].map((t) => [nftId(t), t]));
    for (const counter of counters) {
      const match = /^(refused|in|out)_(.+)$/.exec(counter.name);
      if (match?.[1] === 'refused') refused.set(Number(match[2]), counter.packets);
      const tsa = match && match[1] !== 'refused' ? tsas.get(match[2]!) : undefined;
      if (tsa && this.deps.bytes) {
        const entry = this.deps.bytes.get(tsa) ?? { in: 0, out: 0 };
        entry[match![1] as 'in' | 'out'] = counter.bytes;
        this.deps.bytes.set(tsa, entry);
      }
    }
    this.#refused = refused;
  }

  /** Connections in conntrack, per "TSA|server"; refusals per Target Set since the start. */
  counts(): DataPathCounts {
    const servers = new Map<string, { active: number; opened: number }>();
    for (const [key, opened] of this.#opened)
      servers.set(key, { active: this.#flows.get(key)?.size ?? 0, opened });
    return { connections: this.#connections, servers, refused: this.#refused };
  }

  #script(plan: ForwardingPlan): string {
    const t = `inet ${this.#table}`;
    const lines = [
      `add table ${t}`,
      `add chain ${t} to_servers { type nat hook prerouting priority dstnat; policy accept; }`,
      // A timeout policy attaches to a connection conntrack has just created and not yet
      // confirmed: after conntrack (-200), before DNAT rewrites the TSA (-100).
      `add chain ${t} delete_age { type filter hook prerouting priority mangle; policy accept; }`,
      `add chain ${t} from_servers { type nat hook postrouting priority srcnat; policy accept; }`,
      `add chain ${t} traffic { type filter hook forward priority filter; policy accept; }`,
      `flush chain ${t} to_servers`,
      `flush chain ${t} delete_age`,
      `flush chain ${t} from_servers`,
      `flush chain ${t} traffic`,
    ];
    const reject = plan.reject === 'tcpReset' ? 'reject with tcp reset' : 'drop';
    const served = plan.tsas.filter((p) => p.protocols.includes('tcp'));
    for (const p of served) lines.push(...this.#rulesOf(t, p, reject));
    // Replies come back through the TSA itself, which moves with its connections on a failover.
    for (const tsa of new Set(served.map((p) => p.tsa))) {
      const ipx = net.isIPv6(tsa) ? 'ip6' : 'ip';
      const id = nftId(tsa);
      lines.push(
        `add rule ${t} from_servers ct status dnat ct original ${ipx} daddr ${tsa} snat ${ipx} to ${tsa}`,
        `add counter ${t} in_${id}`,
        `add counter ${t} out_${id}`,
        `add rule ${t} traffic ct original ${ipx} daddr ${tsa} ct direction original counter name "in_${id}"`,
        `add rule ${t} traffic ct original ${ipx} daddr ${tsa} ct direction reply counter name "out_${id}"`,
      );
    }
    return lines.join('\n') + '\n';
  }

  #rulesOf(t: string, p: PlannedTsa, reject: string): string[] {
    const ipx = p.family === 6 ? 'ip6' : 'ip';
    const ports = `{ ${p.ports.join(', ')} }`;
    const match = `${ipx} daddr ${p.tsa} tcp dport ${ports}`;
    const timeout = `age_${p.deleteAgeSeconds}_${p.family}`;
    const lines = [
      `add ct timeout ${t} ${timeout} { protocol tcp; l3proto ${ipx}; policy = { established: ${p.deleteAgeSeconds} }; }`,
      `add rule ${t} delete_age ${match} ct timeout set "${timeout}"`,
      // A connection idle for Delete Age has lost its conntrack entry; its next packet would be
      // "new" mid-stream. Answer it with a reset: the connection closes, as §3.5 asks, instead of
      // being picked up again. (So is a connection the mate carried and conntrackd did not
      // deliver, after a takeover.)
      `add rule ${t} to_servers ${match} ct state new tcp flags & (fin | syn | rst | ack) != syn reject with tcp reset`,
    ];
    const table = p.newConnections;
    if (!table) {
      // A named counter outlives the chain flush of every reprogramming: refusals accumulate.
      const counter = `refused_${p.targetSet}`;
      lines.push(
        `add counter ${t} ${counter}`,
        `add rule ${t} to_servers ${match} ct state new counter name "${counter}" ${reject}`,
      );
      return lines;
    }
    const map = bucketElements(
      table,
      p.servers.map((s) => s.address),
    );
    lines.push(
      `add rule ${t} to_servers ${match} ct state new counter dnat ${ipx} to jhash ${ipx} saddr . tcp sport mod ${table.size} seed ${this.deps.hashSeed} map { ${map} }`,
    );
    return lines;
  }

  /**
   * A new configuration closes the connections it removes (SPEC §4.1): of a server taken out of a
   * Target Set, of a Target Set deleted or disabled, of a TSA that changed. Their entries go.
   */
  async #deleteConnectionsTheConfigRemoved() {
    const document = this.deps.document();
    if (!document || document.revision === this.#pairsRevision) return;
    const before = this.#pairs;
    this.#pairs = forwardedPairs(document);
    this.#pairsRevision = document.revision;
    for (const pair of before ?? []) {
      if (this.#pairs.has(pair)) continue;
      const [tsa, server] = pair.split('|') as [string, string];
      await deleteEntries(['--orig-dst', tsa, '--reply-src', server]);
      this.deps.log.info({ tsa, server }, 'conntrack entries the configuration removed deleted');
    }
  }

  /** Offline and initializing servers lose their connections (SPEC §3.1): their conntrack entries go. */
  async #deleteConnectionsOfLostServers(plan: ForwardingPlan) {
    for (const p of plan.tsas) {
      for (const s of p.servers) {
        const before = this.#states.get(s.address);
        this.#states.set(s.address, s.state);
        if (before !== undefined && before !== s.state && s.dropsExisting) {
          await deleteEntries(['--reply-src', s.address]);
          this.deps.log.info(
            { server: s.address, state: s.state },
            'conntrack entries of the server deleted',
          );
        }
      }
    }
  }

  close(): void {
    // Connections the engine lets go are the kernel's: state changes are handled in refresh().
  }

  bindFailures(): BindFailure[] {
    return this.#nft.failures(this.#wanted);
  }

  listening(): Listener[] {
    return this.#nft.error ? [] : [...this.#wanted];
  }

  /**
   * The address goes first: without the table, a packet to a TSA still on this node would reach
   * the node's own stack, which resets its connection. (The mate or the restarted agent carries
   * the connections on; conntrack keeps them.) Then the table goes.
   */
  async stop(release: () => Promise<void>): Promise<void> {
    await release();
    await this.#nft.remove();
  }
}

/** Every "TSA|server" pair a configuration forwards: enabled Target Sets, primary and secondary. */
function forwardedPairs(document: ConfigDocument): Set<string> {
  const pairs = new Set<string>();
  for (const ts of document.config.targetSets) {
    if (ts.disabled) continue;
    for (const tsa of [ts.primary.address, ts.secondary?.address]) {
      if (tsa) for (const s of ts.servers) pairs.add(`${tsa}|${serverAddressBehind(ts, s, tsa)}`);
    }
  }
  return pairs;
}

type TargetSetConfig = ConfigDocument['config']['targetSets'][number];

/** The address of a server behind one of its Target Set's TSAs: the secondary TSA's own, if any. */
function serverAddressBehind(
  ts: TargetSetConfig,
  server: TargetSetConfig['servers'][number],
  tsa: string,
): string {
  return ts.secondary?.address === tsa
    ? (server.secondaryAddress ?? server.address)
    : server.address;
}

/** Deletes the TCP conntrack entries matching these filters (none matching is not an error). */
async function deleteEntries(filters: string[]) {
  await run('conntrack', ['-D', '-p', 'tcp', ...filters]).catch(() => undefined);
}
