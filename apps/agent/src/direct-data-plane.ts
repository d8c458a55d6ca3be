import type { ForwardingPlan, MaglevTable } from '@ipfe/engine';
import { canonicalIp } from '@ipfe/schema';
import type { Logger } from 'pino';
import type {
  BindFailure,
  DataPathCounts,
  DataPlane,
  Listener,
  ServeChange,
} from './data-plane.ts';
import { listenersOf } from './data-plane.ts';
import type { ExitGuard } from './exit-guard.ts';
import type { SharedFlow } from './mate-link.ts';
import {
  bucketElements,
  NftTable,
  nextReadAt,
  nftId,
  listSets,
  ServedPlan,
  type NftSetElement,
} from './nft.ts';

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
/**
 * How long after taking a TSA over this node adopts flows it has no record of (by the stateless
 * table): the mate tells of every flow within a read interval, so only those it opened just
 * before it failed, or those of an agent restarted with its table gone, are missing — and they are
 * busy. Past this (or Delete Age, if shorter) a TCP packet without record is an idle connection's.
 */
const ADOPT_MAX_S = 60;
const RESEND_EVERY_MS = 10_000;
/** Flow records kept for the mate's TSAs, in case this node takes them over. */
const MATE_RECORDS_MAX = 2_000_000;
/** Flow records a TSA may hold (an nft set's bound; a full set records no more, it forwards on). */
const RECORDS_PER_TSA = 1_048_576;

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
}

/** A flow record: this node's memory of which server a connection went to. */
export interface FlowRecord {
  tsa: string;
  protocol: 'tcp' | 'sctp';
  source: string;
  sourcePort: number;
  /** The TSA's port. */
  port: number;
  server: string;
  expiresS: number;
}

/**
 * The counters, as elements of sets with `counter` (one per family): `in` and `refused` keyed by
 * TSA, `opened` by TSA and server id. Named counters would cost a listing of every set and map of
 * the table at each read (see `listSets`).
 */
const COUNTED = {
  in: { 4: 'in4', 6: 'in6' },
  opened: { 4: 'opened4', 6: 'opened6' },
  refused: { 4: 'refused4', 6: 'refused6' },
} as const;
const COUNTED_SETS: ReadonlySet<string> = new Set(
  Object.values(COUNTED).flatMap((byFamily) => Object.values(byFamily)),
);

/**
 * The transparent data path: a layer-3 forwarder that rewrites nothing (the source product's
 * IPFE). An nftables `netdev` ingress chain on the XSI interface sends each packet to TSA:port
 * unchanged to the chosen server's address (`fwd`, a layer-2 next hop); the servers hold the TSA
 * and answer the client directly, so only client → server packets cross this node.
 *
 * - A new TCP connection (SYN) goes by the plan's new-connection table, hashed on source address
 *   and port; an SCTP association (INIT) by the weight table hashed on the source port alone, so
 *   that both paths of a multihomed association reach the same row through different IPFEs.
 * - Each packet of a flow refreshes its record (address, protocol, port → server) in an nft
 *   dynamic set (one per server) that expires at Delete Age: later packets follow their first one whatever the
 *   tables do meanwhile (Least Load per connection, hitless configuration changes).
 * - Each node tells its mate of its flows over the mate link; the mate keeps them and puts them in
 *   its own map when it takes the TSA over, before it announces it.
 * - A packet of a flow without record (one the mate opened just before it failed) goes by the
 *   weight table of the servers that keep their connections, the same on both mates, for a while
 *   after a takeover (ADOPT_MAX_S); later, a TCP packet without record belongs to a connection
 *   idle longer than Delete Age and is answered with a reset (SPEC §3.5).
 */
export class DirectDataPlane implements DataPlane {
  readonly kind = 'direct' as const;
  readonly protocols = ['tcp', 'sctp'] as const;
  /** Established connections without a record (the mate's) go by the table: the engine's size. */
  readonly tableSizing = 'full' as const;
  /** A standby's tables are loaded before it takes over (65,537 buckets take a while). */
  readonly rendersStandby = true;
  #servedTsas = new Set<string>();
  readonly #table: string;
  #wanted: Listener[] = [];
  readonly #nft: NftTable;
  #lastRefresh = 0;
  #served = new ServedPlan();
  #chains = new Set<string>();
  #sets = new Set<string>();
  /** What each bucket map holds, as last programmed. */
  #mapContents = new Map<string, string>();
  #maps = new Set<string>();
  #serverIds = new Map<string, number>();
  #gainedAt = new Map<string, number>();
  #plan: ForwardingPlan | null = null;
  #nextCount = 0;
  #nextRecords = 0;
  #reader: NodeJS.Timeout | null = null;
  #reading = false;
  #active = new Map<string, number>();
  #opened = new Map<string, number>();
  #refused = new Map<number, number>();
  #connections = 0;
  /** When each flow was last told to the mate, and to which server it went. */
  #shared = new Map<string, { server: string; at: number }>();
  /** The mate's flows, by "TSA|protocol|source|port": where they go, and until when. */
  #mateFlows = new Map<string, { flow: SharedFlow; until: number }>();
  /** The flows this node held records of at its last read. */
  #own = new Set<string>();
  /** The mate's flows written into this node's sets since the last takeover. */
  #inserted = new Set<string>();
  /** Those of the script being applied. */
  #inserting: string[] = [];

  constructor(private readonly deps: DirectDeps) {
    this.#table = `ipfe_${deps.slot.toLowerCase()}`;
    this.#nft = new NftTable('netdev', this.#table, deps.log, deps.guard);
  }

  /** The rules are in place before the TSAs are announced. */
  async serve(plan: ForwardingPlan, change: ServeChange): Promise<void> {
    const now = this.deps.now();
    this.#servedTsas = new Set(change.served);
    for (const tsa of change.gained) {
      this.#gainedAt.set(tsa, now);
      for (const key of this.#inserted) if (key.startsWith(`${tsa}|`)) this.#inserted.delete(key);
    }
    // A TSA gained or lost, or a new configuration, is rendered at once; the rest as refreshes are.
    await this.#render(plan, this.#served.changed(plan, change.served));
    await change.hold();
  }

  async refresh(plan: () => ForwardingPlan): Promise<void> {
    if (this.deps.now() - this.#lastRefresh < REFRESH_EVERY_MS) return;
    await this.#render(plan(), false);
  }

  async #render(plan: ForwardingPlan, force: boolean) {
    const now = this.deps.now();
    if (!force && now - this.#lastRefresh < REFRESH_EVERY_MS) return;
    this.#lastRefresh = now;
    this.#plan = plan;
    this.#wanted = [...listenersOf(plan, 'tcp'), ...listenersOf(plan, 'sctp')].filter((l) =>
      this.#servedTsas.has(l.tsa),
    );
    this.#reader ??= setInterval(() => void this.#read(), RECORD_READS.forMate.everyMs);
    this.#inserting = [];
    const { script, chains, maps, sets, signatures } = this.#script(plan, now);
    if (await this.#nft.apply(script)) {
      for (const key of this.#inserting) this.#inserted.add(key);
      this.#chains = chains;
      this.#maps = maps;
      this.#sets = sets;
      this.#mapContents = signatures;
    } else {
      this.#mapContents = new Map(); // unknown now: sent whole next time
    }
  }

  #serverId(address: string): number {
    let id = this.#serverIds.get(address);
    if (id === undefined) this.#serverIds.set(address, (id = this.#serverIds.size + 1));
    return id;
  }

  #script(plan: ForwardingPlan, now: number) {
    const t = `netdev ${this.#table}`;
    const dev = JSON.stringify(this.deps.device);
    const chains = new Set<string>();
    const maps = new Set<string>();
    const signatures = new Map<string, string>();
    const sets = new Set<string>();
    const head = [
      `add table ${t}`,
      `add chain ${t} ingress { type filter hook ingress device ${dev} priority -150; policy accept; }`,
      `flush chain ${t} ingress`,
    ];
    const declarations: string[] = [];
    const elements: string[] = [];
    const rules: string[] = [];
    const chain = (name: string) => {
      chains.add(name);
      declarations.push(`add chain ${t} ${name}`, `flush chain ${t} ${name}`);
    };
    // One named map per distinct table of a TSA (Hash's new-connection and weight tables are one
    // table), bucket → server id; its 65,537 elements are sent again only when the table or its
    // servers changed. Integers, not verdicts: nft validates every jump a verdict map holds, and a
    // change of weights took seconds to load.
    const mapNames = new Map<MaglevTable, string>();
    const bucketMap = (id: string, table: MaglevTable, targets: string[]) => {
      let name = mapNames.get(table);
      if (!name) {
        name = `b${mapNames.size + 1}_${id}`;
        mapNames.set(table, name);
        maps.add(name);
        // `type mark : mark`, looked up by the mark: nft 1.0.6 cannot list a `typeof jhash` map
        // (it segfaults, and `nft list ruleset` with it).
        declarations.push(`add map ${t} ${name} { type mark : mark; }`);
        const content = bucketElements(table, targets);
        signatures.set(name, content);
        if (this.#mapContents.get(name) !== content)
          elements.push(`flush map ${t} ${name}`, `add element ${t} ${name} { ${content} }`);
      }
      return { name, modulus: `mod ${table.size} seed ${this.deps.hashSeed}` };
    };
    const reject = plan.reject === 'tcpReset' ? 'reject with tcp reset' : 'drop';
    this.#forgetExpiredMateFlows(now);

    for (const p of plan.tsas) {
      const id = nftId(p.tsa);
      mapNames.clear();
      const ipx = p.family === 6 ? 'ip6' : 'ip';
      // Two connections of one client may share a source port towards two forwarded ports.
      const key = `${ipx} saddr . meta l4proto . th sport . th dport`;
      // One set of flow records per server (nft 1.0.6 cannot update a map whose key is longer
      // than 16 bytes, as an IPv6 one is; sets it can).
      const recordsOf = (sid: number) => `rec_${id}_${sid}`;
      const family = p.family === 6 ? 6 : 4;
      const address = p.family === 6 ? 'ipv6_addr' : 'ipv4_addr';
      const counted = {
        in: COUNTED.in[family],
        opened: COUNTED.opened[family],
        refused: COUNTED.refused[family],
      };
      // Declared once per table; an element added again keeps its counter.
      for (const [kind, name] of Object.entries(counted)) {
        if (!sets.has(name))
          declarations.push(
            `add set ${t} ${name} { type ${address}${kind === 'opened' ? ' . mark' : ''}; counter; }`,
          );
        sets.add(name);
      }
      elements.push(
        `add element ${t} ${counted.in} { ${p.tsa} }`,
        `add element ${t} ${counted.refused} { ${p.tsa} }`,
      );
      const toServer = p.servers.map((s) => `to_${id}_${this.#serverId(s.address)}`);
      const serverIds = p.servers.map((s) => String(this.#serverId(s.address)));
      // The chosen server's id in the packet's mark, then to its chain.
      // (The bucket first, then its server through the map.)
      const choose = (chain: string, hash: string, table: MaglevTable) => {
        const { name, modulus } = bucketMap(id, table, serverIds);
        return [
          `add rule ${t} ${chain} meta mark set jhash ${hash} ${modulus}`,
          `add rule ${t} ${chain} meta mark set meta mark map @${name}`,
          `add rule ${t} ${chain} meta mark vmap { ${serverIds.map((sid, i) => `${sid} : goto ${toServer[i]}`).join(', ')} }`,
        ];
      };
      p.servers.forEach((s, i) => {
        const name = toServer[i]!;
        const sid = this.#serverId(s.address);
        const records = recordsOf(sid);
        sets.add(records);
        declarations.push(
          `add set ${t} ${records} { type ${p.family === 6 ? 'ipv6_addr' : 'ipv4_addr'} . inet_proto . inet_service . inet_service; flags dynamic,timeout; size ${RECORDS_PER_TSA}; }`,
        );
        chain(name);
        if (s.dropsExisting) {
          // Offline or initializing (SPEC §3.1): its connections are closed at their next packet.
          rules.push(
            `add rule ${t} ${name} delete @${records} { ${key} }`,
            `add rule ${t} ${name} meta l4proto tcp reject with tcp reset`,
            `add rule ${t} ${name} drop`,
          );
          return;
        }
        elements.push(`add element ${t} ${counted.opened} { ${p.tsa} . ${sid} }`);
        const opened = `${ipx} daddr . meta mark @${counted.opened}`;
        rules.push(
          `add rule ${t} ${name} update @${records} { ${key} timeout ${p.deleteAgeSeconds}s }`,
          `add rule ${t} ${name} meta mark set ${sid}`,
          `add rule ${t} ${name} tcp flags & (syn | ack) == syn ${opened}`,
          `add rule ${t} ${name} sctp chunk init exists ${opened}`,
          `add rule ${t} ${name} fwd ${ipx} to ${s.address} device ${dev}`,
        );
      });

      const adopting =
        now <
        (this.#gainedAt.get(p.tsa) ?? -Infinity) + 1000 * Math.min(ADOPT_MAX_S, p.deleteAgeSeconds);
      // The mate's flows go in with the rules of a takeover, and those it tells of a little later
      // (a hand-back races its resend) while this node adopts.
      if (adopting) elements.push(...this.#mateRecordsOf(p, t, now));

      const svc = `svc_${id}`;
      chain(svc);
      const protocols = `{ ${p.protocols.join(', ')} }`;
      rules.push(
        `add rule ${t} ingress ${ipx} daddr ${p.tsa} meta l4proto ${protocols} th dport { ${p.ports.join(', ')} } goto ${svc}`,
      );
      for (const s of p.servers) {
        if (!s.initiatorPorts || s.dropsExisting) continue;
        // Returns of connections a server opened from the TSA: its own port range (SPEC §3.6).
        const { start, end } = s.initiatorPorts;
        rules.push(
          `add rule ${t} ingress ${ipx} daddr ${p.tsa} meta l4proto { tcp, sctp } th dport ${start}-${end} fwd ${ipx} to ${s.address} device ${dev}`,
        );
      }
      rules.push(`add rule ${t} ${svc} ${ipx} daddr @${counted.in}`);
      // A new connection is decided afresh, even where a record of an earlier one from the same
      // source port lingers (it may name a server that takes no new connections now).
      if (p.protocols.includes('tcp'))
        rules.push(
          `add rule ${t} ${svc} tcp flags & (fin | syn | rst | ack) == syn goto new_${id}`,
        );
      p.servers.forEach((s, i) =>
        rules.push(
          `add rule ${t} ${svc} ${key} @${recordsOf(this.#serverId(s.address))} goto ${toServer[i]}`,
        ),
      );
      const refusedCounter = `${ipx} daddr @${counted.refused}`;

      if (p.protocols.includes('sctp')) {
        const sctp = `sctp_${id}`;
        chain(sctp);
        rules.push(`add rule ${t} ${svc} meta l4proto sctp goto ${sctp}`);
        if (p.newByWeight)
          rules.push(
            `add rule ${t} ${sctp} sctp chunk init exists goto init_${id}`,
            ...choose(`init_${id}`, 'sctp sport', p.newByWeight),
          );
        chain(`init_${id}`);
        rules.push(
          `add rule ${t} ${sctp} sctp chunk init exists ${refusedCounter} drop`,
          `add rule ${t} init_${id} ${refusedCounter} drop`,
        );
        // Mid-association (the other path of a multihomed one, or the mate's): by port, stateless.
        if (p.existingConnections) rules.push(...choose(sctp, 'sctp sport', p.existingConnections));
        rules.push(`add rule ${t} ${sctp} drop`);
      }
      if (p.protocols.includes('tcp')) {
        const fresh = `new_${id}`;
        chain(fresh);

        // A record of an earlier connection from this source port, on any server, goes.
        for (const s of p.servers)
          rules.push(
            `add rule ${t} ${fresh} delete @${recordsOf(this.#serverId(s.address))} { ${key} }`,
          );
        if (p.newConnections)
          rules.push(...choose(fresh, `${ipx} saddr . tcp sport`, p.newConnections));
        rules.push(`add rule ${t} ${fresh} ${refusedCounter} ${reject}`);
        // The stateless table stays programmed: a takeover must not wait for 65,537 elements.
        if (p.existingConnections) {
          const adopt = `adopt_${id}`;
          chain(adopt);
          rules.push(...choose(adopt, `${ipx} saddr . tcp sport`, p.existingConnections));
          // Active-active (BGP): ECMP may move a flow to this node at any time (another IPFE
          // withdrew, the router rehashed), so a packet without record always goes by the table.
          if (adopting || p.announce === 'bgp')
            rules.push(`add rule ${t} ${svc} meta l4proto tcp goto ${adopt}`);
        }
        rules.push(`add rule ${t} ${svc} meta l4proto tcp reject with tcp reset`);
      }
    }
    // What the last configuration had and this one does not: emptied, then removed.
    const tail: string[] = [];
    for (const name of this.#maps) if (!maps.has(name)) tail.push(`delete map ${t} ${name}`);
    for (const name of this.#sets) if (!sets.has(name)) tail.push(`delete set ${t} ${name}`);
    for (const name of this.#chains)
      if (!chains.has(name)) {
        head.push(`add chain ${t} ${name}`, `flush chain ${t} ${name}`);
        tail.push(`delete chain ${t} ${name}`);
      }
    for (const name of this.#maps) if (!maps.has(name)) head.push(`flush map ${t} ${name}`);
    const script = [...head, ...declarations, ...elements, ...rules, ...tail].join('\n') + '\n';
    return { script, chains, maps, sets, signatures };
  }

  /** The mate's records of a TSA this node takes over (and not yet written), as set elements. */
  #mateRecordsOf(p: ForwardingPlan['tsas'][number], t: string, now: number): string[] {
    const ids = new Map(
      p.servers.filter((s) => !s.dropsExisting).map((s) => [s.address, this.#serverId(s.address)]),
    );
    const bySet = new Map<string, string[]>();
    for (const [key, { flow, until }] of this.#mateFlows) {
      const [tsa, protocol, source, sourcePort, server, , port] = flow;
      const sid = ids.get(server);
      // A flow this node recorded itself meanwhile (adopted by the table) keeps its record: nft
      // 1.0.6 cannot delete an element that may be absent, and one key in two sets is ambiguous.
      if (tsa !== p.tsa || sid === undefined || this.#inserted.has(key) || this.#own.has(key))
        continue;
      this.#inserting.push(key);
      const seconds = Math.max(1, Math.ceil((until - now) / 1000));
      const set = `rec_${nftId(p.tsa)}_${sid}`;
      let elements = bySet.get(set);
      if (!elements) bySet.set(set, (elements = []));
      elements.push(`${source} . ${protocol} . ${sourcePort} . ${port} timeout ${seconds}s`);
    }
    const lines: string[] = [];
    let flows = 0;
    for (const [set, elements] of bySet) {
      flows += elements.length;
      for (let i = 0; i < elements.length; i += 1000)
        lines.push(`add element ${t} ${set} { ${elements.slice(i, i + 1000).join(', ')} }`);
    }
    if (flows > 0) this.deps.log.info({ tsa: p.tsa, flows }, 'taking over the mate’s flows');
    return lines;
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

  /** Everything is told again at the next read: the mate kept nothing of what it heard. */
  mateReset(): void {
    this.#shared.clear();
    this.#nextCount = 0;
    this.#nextRecords = 0;
  }

  /** Flow records the mate told of. */
  fromMate(flows: SharedFlow[]): void {
    const now = this.deps.now();
    for (const flow of flows) {
      const key = flowKey(flow[0], flow[1], flow[2], flow[3], flow[6]);
      if (this.#mateFlows.size >= MATE_RECORDS_MAX && !this.#mateFlows.has(key)) break;
      this.#mateFlows.set(key, { flow, until: now + flow[5] * 1000 });
    }
  }

  #forgetExpiredMateFlows(now: number) {
    for (const [key, { until }] of this.#mateFlows) if (until <= now) this.#mateFlows.delete(key);
  }

  /**
   * The counters (opened, refused, bytes in), and with `records` the flow records: open flows per
   * server, and what to tell the mate. Without, the last read's open flows stand.
   */
  async #count(now: number, records: boolean) {
    const plan = this.#plan;
    if (!plan || !this.#nft.programmed) return;
    const names = [...this.#sets].filter((name) => records || COUNTED_SETS.has(name));
    const listed = await listSets('netdev', this.#table, names);
    if (!listed) {
      this.#nft.forget(); // the table is gone: program it again
      this.#mapContents = new Map();
      return;
    }
    const bySet = new Map<string, Map<string, { packets: number; bytes: number }>>();
    const counter = (set: string, ...key: (string | number)[]) => {
      let counters = bySet.get(set);
      if (!counters) {
        counters = new Map();
        for (const e of listed.get(set) ?? []) if (e.counter) counters.set(keyOf(e.val), e.counter);
        bySet.set(set, counters);
      }
      return counters.get(keyOf(key.length === 1 ? key[0] : { concat: key }));
    };
    const opened = new Map<string, number>();
    const refused = new Map<number, number>();
    for (const p of plan.tsas) {
      const family = p.family === 6 ? 6 : 4;
      refused.set(
        p.targetSet,
        (refused.get(p.targetSet) ?? 0) + (counter(COUNTED.refused[family], p.tsa)?.packets ?? 0),
      );
      const bytesIn = counter(COUNTED.in[family], p.tsa)?.bytes;
      if (bytesIn !== undefined && this.deps.bytes) {
        const entry = this.deps.bytes.get(p.tsa) ?? { in: 0, out: 0 };
        entry.in = bytesIn;
        this.deps.bytes.set(p.tsa, entry);
      }
      for (const s of p.servers) {
        const sid = this.#serverId(s.address);
        opened.set(
          `${p.tsa}|${s.address}`,
          counter(COUNTED.opened[family], p.tsa, sid)?.packets ?? 0,
        );
      }
    }
    this.#opened = opened;
    this.#refused = refused;
    if (records) this.#countRecords(plan, listed, now);
  }

  /** Open flows per server from the listed record sets, and the new ones told to the mate. */
  #countRecords(plan: ForwardingPlan, listed: Map<string, NftSetElement[]>, now: number) {
    const active = new Map<string, number>();
    let connections = 0;
    const own = new Set<string>();
    const recordsByTsa = recordsOf(plan, this.#recordOwners(plan), listed);
    for (const p of plan.tsas) {
      const records = recordsByTsa.get(p.tsa) ?? [];
      for (const r of records) own.add(flowKey(r.tsa, r.protocol, r.source, r.sourcePort, r.port));
      this.#share(p, records, now);
      for (const s of p.servers) {
        const n = records.filter((r) => r.server === s.address).length;
        active.set(`${p.tsa}|${s.address}`, n);
        connections += n;
      }
    }
    this.#own = own;
    this.#active = active;
    this.#connections = connections;
  }

  /**
   * Tells the mate of flows it does not know yet, or whose server changed, and every flow again
   * every 10 s (or third of Delete Age, if shorter) while it lasts: a datagram may be lost, and
   * the mate's copy expires as this node's would.
   */
  #share(p: ForwardingPlan['tsas'][number], records: FlowRecord[], now: number) {
    if (!this.deps.shareFlows) return;
    const again = Math.min(RESEND_EVERY_MS, (p.deleteAgeSeconds * 1000) / 3);
    const flows: SharedFlow[] = [];
    const seen = new Set<string>();
    for (const r of records) {
      const key = flowKey(r.tsa, r.protocol, r.source, r.sourcePort, r.port);
      seen.add(key);
      const last = this.#shared.get(key);
      if (last && last.server === r.server && now - last.at < again) continue;
      this.#shared.set(key, { server: r.server, at: now });
      flows.push([
        r.tsa,
        r.protocol,
        r.source,
        r.sourcePort,
        r.server,
        Math.max(1, r.expiresS),
        r.port,
      ]);
    }
    for (const key of this.#shared.keys())
      if (key.startsWith(`${p.tsa}|`) && !seen.has(key)) this.#shared.delete(key);
    if (flows.length > 0) this.deps.shareFlows(flows);
    this.deps.log.debug({ records: records.length, told: flows.length }, 'flows told to the mate');
  }

  /** Which TSA and server each record set belongs to, by set name. */
  #recordOwners(plan: ForwardingPlan): Map<string, { tsa: string; server: string }> {
    const owners = new Map<string, { tsa: string; server: string }>();
    for (const p of plan.tsas)
      for (const s of p.servers)
        owners.set(`rec_${nftId(p.tsa)}_${this.#serverId(s.address)}`, {
          tsa: p.tsa,
          server: s.address,
        });
    return owners;
  }

  counts(): DataPathCounts {
    const servers = new Map<string, { active: number; opened: number }>();
    for (const [key, opened] of this.#opened)
      servers.set(key, { active: this.#active.get(key) ?? 0, opened });
    return {
      connections: this.#connections,
      servers,
      refused: this.#refused,
      mateFlows: this.#mateFlows.size,
    };
  }

  /** The engine sees no connection of this path: server states reach it through the plan. */
  close(): void {}

  bindFailures(): BindFailure[] {
    return this.#nft.failures(this.#wanted);
  }

  listening(): Listener[] {
    return this.#nft.error ? [] : [...this.#wanted];
  }

  /** The TSAs go first (the mate takes them with their flows), then the table. */
  async stop(release: () => Promise<void>): Promise<void> {
    if (this.#reader) clearInterval(this.#reader);
    this.#reader = null;
    await release();
    await this.#nft.remove();
  }
}

const flowKey = (tsa: string, protocol: string, source: string, sourcePort: number, port: number) =>
  `${tsa}|${protocol}|${source}|${sourcePort}|${port}`;

/** This node's flow records, by TSA (for counts, and for the mate), from its listed sets. */
function recordsOf(
  plan: ForwardingPlan,
  owners: Map<string, { tsa: string; server: string }>,
  listed: Map<string, NftSetElement[]>,
): Map<string, FlowRecord[]> {
  const byTsa = new Map<string, FlowRecord[]>(plan.tsas.map((p) => [p.tsa, []]));
  for (const [name, owner] of owners) {
    const records = byTsa.get(owner.tsa)!;
    for (const { val, expires } of listed.get(name) ?? []) {
      const [source, protocol, sourcePort, port] = (
        val as { concat: [string, string, number, number] }
      ).concat;
      if (protocol !== 'tcp' && protocol !== 'sctp') continue;
      records.push({ ...owner, protocol, source, sourcePort, port, expiresS: expires ?? 0 });
    }
  }
  return byTsa;
}

/** A counted set's key as `address` or `address|id` (nft lists addresses in their short form). */
function keyOf(val: unknown): string {
  if (typeof val === 'string') return canonicalIp(val);
  const concat = (val as { concat?: unknown[] } | null)?.concat;
  if (Array.isArray(concat))
    return concat.map((v) => (typeof v === 'string' ? canonicalIp(v) : String(v))).join('|');
  return String(val);
}
