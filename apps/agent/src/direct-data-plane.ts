import type { ForwardingPlan, MaglevTable } from '@ipfe/engine';
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
import { bucketElements, nftApply, nftId, readCounters, run } from './nft.ts';

const REFRESH_EVERY_MS = 250;
/** How often the records are read: for the counts, and to tell the mate of new flows. */
const READ_EVERY_MS = 250;
const READ_BUDGET_FACTOR = 50;
/**
 * How long after taking a TSA over this node adopts flows it has no record of (by the stateless
 * table): the mate tells of every flow within a read interval, so only those it opened just
 * before it failed, or those of an agent restarted with its table gone, are missing — and they are
 * busy. Past this (or Delete Age, if shorter) a TCP packet without record is an idle connection's.
 */
const ADOPT_MAX_S = 60;
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
}

/** A flow record: this node's memory of which server a connection went to. */
export interface FlowRecord {
  tsa: string;
  protocol: 'tcp' | 'sctp';
  source: string;
  sourcePort: number;
  server: string;
  expiresS: number;
}

interface NftMapJson {
  nftables: {
    map?: {
      name: string;
      elem?: [{ elem: { val: { concat: [string, string, number] }; expires?: number } }, number][];
    };
  }[];
}

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
 *   dynamic map that expires at Delete Age: later packets follow their first one whatever the
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
  readonly #table: string;
  #wanted: Listener[] = [];
  #applied: string | null = null;
  #error: string | null = null;
  #lastRefresh = 0;
  #served = '';
  #servedRevision = -1;
  #chains = new Set<string>();
  /** What each bucket map holds, as last programmed. */
  #mapContents = new Map<string, string>();
  #maps = new Set<string>();
  #serverIds = new Map<string, number>();
  #gainedAt = new Map<string, number>();
  #plan: ForwardingPlan | null = null;
  #nextCount = 0;
  #active = new Map<string, number>();
  #opened = new Map<string, number>();
  #refused = new Map<number, number>();
  #connections = 0;
  /** When each flow was last told to the mate, and to which server it went. */
  #shared = new Map<string, { server: string; at: number }>();
  /** The mate's flows, by "TSA|protocol|source|port": where they go, and until when. */
  #mateFlows = new Map<string, { flow: SharedFlow; until: number }>();
  /** TSAs just taken over: the mate's records of them go in with the next rules. */
  #adopting = new Set<string>();

  constructor(private readonly deps: DirectDeps) {
    this.#table = `ipfe_${deps.slot.toLowerCase()}`;
  }

  /** The rules are in place before the TSAs are announced. */
  async serve(plan: ForwardingPlan, change: ServeChange): Promise<void> {
    const now = this.deps.now();
    for (const tsa of change.gained) {
      this.#gainedAt.set(tsa, now);
      this.#adopting.add(tsa);
    }
    // A TSA gained or lost, or a new configuration, is rendered at once; the rest as refreshes are.
    const served = plan.tsas.map((p) => p.tsa).join(',');
    const changed = served !== this.#served || plan.revision !== this.#servedRevision;
    this.#served = served;
    this.#servedRevision = plan.revision;
    await this.#render(plan, changed);
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
    this.#wanted = [...listenersOf(plan, 'tcp'), ...listenersOf(plan, 'sctp')];
    if (now >= this.#nextCount) {
      await this.#count(now);
      // Listing the records costs in proportion to their number: at most 2 % of a core.
      this.#nextCount = now + Math.max(READ_EVERY_MS, READ_BUDGET_FACTOR * (this.deps.now() - now));
    }
    const adopting = [...this.#adopting];
    const { script, chains, maps, signatures } = this.#script(plan, now);
    if (script === this.#applied) return;
    try {
      const started = this.deps.now();
      await nftApply(script);
      this.deps.log.debug(
        { bytes: script.length, ms: Math.round(this.deps.now() - started) },
        'nftables programmed',
      );
      for (const tsa of adopting) this.#adopting.delete(tsa);
      if (this.#applied === null)
        this.deps.guard?.set('2 nftables', ['nft', 'delete', 'table', 'netdev', this.#table]);
      this.#applied = script;
      this.#chains = chains;
      this.#maps = maps;
      this.#mapContents = signatures;
      this.#error = null;
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.#error)
        this.deps.log.error({ err: message.slice(0, 2000) }, 'nft transaction failed');
      this.#error = message;
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
    // table); its 65,537 elements are sent again only when the table or its servers changed.
    const mapNames = new Map<MaglevTable, string>();
    const bucketMap = (id: string, table: MaglevTable, targets: string[]) => {
      let name = mapNames.get(table);
      if (!name) {
        name = `b${mapNames.size + 1}_${id}`;
        mapNames.set(table, name);
        maps.add(name);
        declarations.push(`add map ${t} ${name} { typeof jhash ip saddr mod 2 : verdict; }`);
        const content = bucketElements(table, targets);
        signatures.set(name, content);
        if (this.#mapContents.get(name) !== content)
          elements.push(`flush map ${t} ${name}`, `add element ${t} ${name} { ${content} }`);
      }
      return `mod ${table.size} seed ${this.deps.hashSeed} vmap @${name}`;
    };
    const reject = plan.reject === 'tcpReset' ? 'reject with tcp reset' : 'drop';
    this.#forgetExpiredMateFlows(now);

    for (const p of plan.tsas) {
      const id = nftId(p.tsa);
      mapNames.clear();
      const ipx = p.family === 6 ? 'ip6' : 'ip';
      const key = `${ipx} saddr . meta l4proto . th sport`;
      const records = `rec_${id}`;
      maps.add(records);
      declarations.push(
        `add map ${t} ${records} { type ${p.family === 6 ? 'ipv6_addr' : 'ipv4_addr'} . inet_proto . inet_service : mark; flags dynamic,timeout; size ${RECORDS_PER_TSA}; }`,
        `add counter ${t} in_${id}`,
      );
      const toServer = p.servers.map((s) => `to_${id}_${this.#serverId(s.address)}`);
      const gotoServer = toServer.map((name) => `goto ${name}`);
      p.servers.forEach((s, i) => {
        const name = toServer[i]!;
        const sid = this.#serverId(s.address);
        chain(name);
        if (s.dropsExisting) {
          // Offline or initializing (SPEC §3.1): its connections are closed at their next packet.
          // (nft cannot delete a map element from a rule: the record expires at Delete Age.)
          rules.push(
            `add rule ${t} ${name} meta l4proto tcp reject with tcp reset`,
            `add rule ${t} ${name} drop`,
          );
          return;
        }
        const opened = `opened_${id}_${sid}`;
        declarations.push(`add counter ${t} ${opened}`);
        rules.push(
          `add rule ${t} ${name} update @${records} { ${key} timeout ${p.deleteAgeSeconds}s : ${sid} }`,
          `add rule ${t} ${name} tcp flags & (syn | ack) == syn counter name "${opened}"`,
          `add rule ${t} ${name} sctp chunk init exists counter name "${opened}"`,
          `add rule ${t} ${name} fwd ${ipx} to ${s.address} device ${dev}`,
        );
      });

      if (this.#adopting.has(p.tsa)) elements.push(...this.#mateRecordsOf(p, t, now));

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
      rules.push(`add rule ${t} ${svc} counter name "in_${id}"`);
      // A new connection is decided afresh, even where a record of an earlier one from the same
      // source port lingers (it may name a server that takes no new connections now).
      if (p.protocols.includes('tcp'))
        rules.push(
          `add rule ${t} ${svc} tcp flags & (fin | syn | rst | ack) == syn goto new_${id}`,
        );
      if (p.servers.length > 0)
        rules.push(
          `add rule ${t} ${svc} meta mark set ${key} map @${records}`,
          `add rule ${t} ${svc} meta mark vmap { ${p.servers.map((s, i) => `${this.#serverId(s.address)} : goto ${toServer[i]}`).join(', ')} }`,
        );
      const adopting =
        now <
        (this.#gainedAt.get(p.tsa) ?? -Infinity) + 1000 * Math.min(ADOPT_MAX_S, p.deleteAgeSeconds);
      const refusedCounter = `refused_${p.targetSet}`;
      declarations.push(`add counter ${t} ${refusedCounter}`);

      if (p.protocols.includes('sctp')) {
        const sctp = `sctp_${id}`;
        chain(sctp);
        rules.push(`add rule ${t} ${svc} meta l4proto sctp goto ${sctp}`);
        if (p.newByWeight)
          rules.push(
            `add rule ${t} ${sctp} sctp chunk init exists jhash sctp sport ${bucketMap(id, p.newByWeight, gotoServer)}`,
          );
        rules.push(
          `add rule ${t} ${sctp} sctp chunk init exists counter name "${refusedCounter}" drop`,
        );
        // Mid-association (the other path of a multihomed one, or the mate's): by port, stateless.
        if (p.existingConnections)
          rules.push(
            `add rule ${t} ${sctp} jhash sctp sport ${bucketMap(id, p.existingConnections, gotoServer)}`,
          );
        rules.push(`add rule ${t} ${sctp} drop`);
      }
      if (p.protocols.includes('tcp')) {
        const fresh = `new_${id}`;
        chain(fresh);

        if (p.newConnections)
          rules.push(
            `add rule ${t} ${fresh} jhash ${ipx} saddr . tcp sport ${bucketMap(id, p.newConnections, gotoServer)}`,
          );
        rules.push(`add rule ${t} ${fresh} counter name "${refusedCounter}" ${reject}`);
        // The stateless table stays programmed: a takeover must not wait for 65,537 elements.
        const existing = p.existingConnections
          ? bucketMap(id, p.existingConnections, gotoServer)
          : null;
        if (adopting && existing)
          rules.push(
            `add rule ${t} ${svc} meta l4proto tcp jhash ${ipx} saddr . tcp sport ${existing}`,
          );
        rules.push(`add rule ${t} ${svc} meta l4proto tcp reject with tcp reset`);
      }
    }
    // What the last configuration had and this one does not: emptied, then removed.
    const tail: string[] = [];
    for (const name of this.#maps) if (!maps.has(name)) tail.push(`delete map ${t} ${name}`);
    for (const name of this.#chains)
      if (!chains.has(name)) {
        head.push(`add chain ${t} ${name}`, `flush chain ${t} ${name}`);
        tail.push(`delete chain ${t} ${name}`);
      }
    for (const name of this.#maps)
      if (!maps.has(name) && !name.startsWith('rec_')) head.push(`flush map ${t} ${name}`);
    const script = [...head, ...declarations, ...elements, ...rules, ...tail].join('\n') + '\n';
    return { script, chains, maps, signatures };
  }

  /** The mate's records of a TSA this node takes over, as map elements. */
  #mateRecordsOf(p: ForwardingPlan['tsas'][number], t: string, now: number): string[] {
    const ids = new Map(
      p.servers.filter((s) => !s.dropsExisting).map((s) => [s.address, this.#serverId(s.address)]),
    );
    const elements: string[] = [];
    for (const { flow, until } of this.#mateFlows.values()) {
      const [tsa, protocol, source, port, server] = flow;
      const sid = ids.get(server);
      if (tsa !== p.tsa || sid === undefined) continue;
      const seconds = Math.max(1, Math.ceil((until - now) / 1000));
      elements.push(`${source} . ${protocol} . ${port} timeout ${seconds}s : ${sid}`);
    }
    const records = `rec_${nftId(p.tsa)}`;
    const lines: string[] = [];
    for (let i = 0; i < elements.length; i += 1000)
      lines.push(`add element ${t} ${records} { ${elements.slice(i, i + 1000).join(', ')} }`);
    if (elements.length > 0)
      this.deps.log.info({ tsa: p.tsa, flows: elements.length }, 'taking over the mate’s flows');
    return lines;
  }

  /** Flow records the mate told of. */
  fromMate(flows: SharedFlow[]): void {
    const now = this.deps.now();
    for (const flow of flows) {
      const key = flow.slice(0, 4).join('|');
      if (this.#mateFlows.size >= MATE_RECORDS_MAX && !this.#mateFlows.has(key)) break;
      this.#mateFlows.set(key, { flow, until: now + flow[5] * 1000 });
    }
  }

  #forgetExpiredMateFlows(now: number) {
    for (const [key, { until }] of this.#mateFlows) if (until <= now) this.#mateFlows.delete(key);
  }

  /** Records per server (open flows), and the counters: opened, refused, bytes in. */
  async #count(now: number) {
    const plan = this.#plan;
    if (!plan || this.#applied === null) return;
    const counters = await readCounters('netdev', this.#table);
    if (!counters) {
      this.#applied = null; // the table is gone: program it again
      this.#mapContents = new Map();
      return;
    }
    const byName = new Map(counters.map((c) => [c.name, c]));
    const opened = new Map<string, number>();
    const refused = new Map<number, number>();
    const active = new Map<string, number>();
    let connections = 0;
    for (const p of plan.tsas) {
      const id = nftId(p.tsa);
      refused.set(p.targetSet, byName.get(`refused_${p.targetSet}`)?.packets ?? 0);
      const bytesIn = byName.get(`in_${id}`)?.bytes;
      if (bytesIn !== undefined && this.deps.bytes) {
        const entry = this.deps.bytes.get(p.tsa) ?? { in: 0, out: 0 };
        entry.in = bytesIn;
        this.deps.bytes.set(p.tsa, entry);
      }
      const records = await this.records(p.tsa);
      this.#share(p, records, now);
      for (const s of p.servers) {
        const key = `${p.tsa}|${s.address}`;
        opened.set(key, byName.get(`opened_${id}_${this.#serverId(s.address)}`)?.packets ?? 0);
        const n = records.filter((r) => r.server === s.address).length;
        active.set(key, n);
        connections += n;
      }
    }
    this.#opened = opened;
    this.#refused = refused;
    this.#active = active;
    this.#connections = connections;
  }

  /**
   * Tells the mate of flows it does not know yet, or whose server changed, and again every third
   * of Delete Age while they last (its copy expires as this node's would).
   */
  #share(p: ForwardingPlan['tsas'][number], records: FlowRecord[], now: number) {
    if (!this.deps.shareFlows) return;
    const again = (p.deleteAgeSeconds * 1000) / 3;
    const flows: SharedFlow[] = [];
    const seen = new Set<string>();
    for (const r of records) {
      const key = `${r.tsa}|${r.protocol}|${r.source}|${r.sourcePort}`;
      seen.add(key);
      const last = this.#shared.get(key);
      if (last && last.server === r.server && now - last.at < again) continue;
      this.#shared.set(key, { server: r.server, at: now });
      flows.push([r.tsa, r.protocol, r.source, r.sourcePort, r.server, Math.max(1, r.expiresS)]);
    }
    for (const key of this.#shared.keys())
      if (key.startsWith(`${p.tsa}|`) && !seen.has(key)) this.#shared.delete(key);
    if (flows.length > 0) this.deps.shareFlows(flows);
  }

  /** This node's flow records of a TSA (for counts, and for the mate). */
  async records(tsa: string): Promise<FlowRecord[]> {
    const byId = new Map([...this.#serverIds].map(([address, id]) => [id, address]));
    try {
      const { stdout } = await run(
        'nft',
        ['-j', 'list', 'map', 'netdev', this.#table, `rec_${nftId(tsa)}`],
        { maxBuffer: 512 * 1024 * 1024 },
      );
      const map = (JSON.parse(stdout) as NftMapJson).nftables.find((i) => i.map)?.map;
      return (map?.elem ?? []).flatMap(([{ elem }, sid]) => {
        const server = byId.get(sid);
        const [source, protocol, sourcePort] = elem.val.concat;
        return server && (protocol === 'tcp' || protocol === 'sctp')
          ? [{ tsa, protocol, source, sourcePort, server, expiresS: elem.expires ?? 0 }]
          : [];
      });
    } catch {
      return [];
    }
  }

  counts(): DataPathCounts {
    const servers = new Map<string, { active: number; opened: number }>();
    for (const [key, opened] of this.#opened)
      servers.set(key, { active: this.#active.get(key) ?? 0, opened });
    return { connections: this.#connections, servers, refused: this.#refused };
  }

  /** The engine sees no connection of this path: server states reach it through the plan. */
  close(): void {}

  bindFailures(): BindFailure[] {
    return this.#error ? this.#wanted.map((l) => ({ ...l, error: this.#error! })) : [];
  }

  listening(): Listener[] {
    return this.#error ? [] : [...this.#wanted];
  }

  /** The TSAs go first (the mate takes them with their flows), then the table. */
  async stop(release: () => Promise<void>): Promise<void> {
    await release();
    await nftApply(`delete table netdev ${this.#table}\n`).catch((err: Error) =>
      this.deps.log.warn({ err: err.message }, 'cannot remove the nftables table'),
    );
    this.#applied = null;
    this.deps.guard?.set('2 nftables', null);
  }
}
