import net from 'node:net';
import type { ForwardingPlan, PlannedTsa } from '@ipfe/engine';
import { ByServer } from './by-server.ts';
import { keyOf } from './direct-reads.ts';
import type { NftSetElement } from './nft.ts';
import { bucketElements, bucketValues, nftId } from './nft.ts';
import { forwardedPortsOf, limitDeclaration, limitName, rejectStatement } from './nft-policies.ts';
import { kernelMeasurements } from './nft-measurements.ts';

export interface KernelScriptOptions {
  /** The agent's own table (`ipfe_<slot>`, family inet). */
  table: string;
  /** The seed of the bucket hash, the same on both mates (see KernelDeps.hashSeed). */
  hashSeed: number;
  /** Options › Accounting: the measurements (nft-measurements.ts) are counted only while it is on. */
  accounting: boolean;
}

/**
 * The kernel path's nft script for a plan (pure): per served TSA and port, new connections are
 * DNATed through a bucket map hashed on source address and port, the reply path is SNATed to the
 * TSA, Delete Age is a `ct timeout` policy, and refusals and bytes are named counters; the
 * measurements of nft-measurements.ts are counted while Accounting is on. It replaces the table's
 * rules in one transaction.
 */
export function renderKernelScript(plan: ForwardingPlan, options: KernelScriptOptions): string {
  const t = `inet ${options.table}`;
  const lines = [
    `add table ${t}`,
    `add chain ${t} to_servers { type nat hook prerouting priority dstnat; policy accept; }`,
    // A timeout policy attaches to a connection conntrack has just created and not yet
    // confirmed: after conntrack (-200), before DNAT rewrites the TSA (-100).
    `add chain ${t} delete_age { type filter hook prerouting priority mangle; policy accept; }`,
    // Every packet to a TSA's port, established ones too (the NAT chains see a connection's
    // first packet only): counted, and dropped above the Global Packet Rate Limit.
    `add chain ${t} throttle { type filter hook prerouting priority mangle - 10; policy accept; }`,
    `add chain ${t} from_servers { type nat hook postrouting priority srcnat; policy accept; }`,
    `add chain ${t} traffic { type filter hook forward priority filter; policy accept; }`,
    `flush chain ${t} to_servers`,
    `flush chain ${t} delete_age`,
    `flush chain ${t} throttle`,
    `flush chain ${t} from_servers`,
    `flush chain ${t} traffic`,
  ];
  const reject = rejectStatement(plan.reject);
  const served = plan.tsas.filter((p) => p.protocols.includes('tcp'));
  lines.push(...throttleLines(t, served, plan.packetRateLimitPps));
  for (const p of served) lines.push(...rulesOf(t, p, reject, options.hashSeed));
  lines.push(...openedLines(t, served));
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
  const measurements = kernelMeasurements(t, plan, options.accounting);
  lines.push(...measurements.declarations, ...measurements.elements, ...measurements.rules);
  return lines.join('\n') + '\n';
}

/**
 * The Global Packet Rate Limit per forwarded port, over every served TSA of it: all its packets
 * counted (`pkts_<port>`), those over the limit counted (`throttled_<port>`) and dropped.
 */
function throttleLines(t: string, served: readonly PlannedTsa[], pps: number): string[] {
  const lines: string[] = [];
  for (const port of forwardedPortsOf({ tsas: served })) {
    const limit = limitName(port, pps);
    lines.push(
      limitDeclaration(t, port, pps),
      `add counter ${t} pkts_${port}`,
      `add counter ${t} throttled_${port}`,
    );
    for (const family of [4, 6] as const) {
      const tsas = [...new Set(served.filter((p) => p.family === family).map((p) => p.tsa))];
      if (tsas.length === 0) continue;
      const ipx = family === 6 ? 'ip6' : 'ip';
      lines.push(
        `add rule ${t} throttle ${ipx} daddr { ${tsas.join(', ')} } tcp dport ${port} counter name "pkts_${port}" limit name "${limit}" counter name "throttled_${port}" drop`,
      );
    }
  }
  return lines;
}

/**
 * The sets counting each server's new connections (`opened`, which Out of Balance weighs), by TSA
 * and the address DNAT sent them to. Counted in the source NAT chain, which sees only a
 * connection's first packet: a connection opened and closed between two conntrack listings
 * (which skip TIME_WAIT and CLOSE entries) is counted all the same. Before the SNAT rules, which
 * end the chain. Never flushed: an element added again keeps its counter.
 */
export const OPENED_SETS = { 4: 'opened4', 6: 'opened6' } as const;

function openedLines(t: string, served: readonly PlannedTsa[]): string[] {
  const lines: string[] = [];
  for (const family of [4, 6] as const) {
    const ofFamily = served.filter((p) => p.family === family);
    if (ofFamily.length === 0) continue;
    const set = OPENED_SETS[family];
    const [ipx, type] = family === 6 ? ['ip6', 'ipv6_addr'] : ['ip', 'ipv4_addr'];
    const pairs = new Set(ofFamily.flatMap((p) => p.servers.map((s) => `${p.tsa} . ${s.address}`)));
    lines.push(`add set ${t} ${set} { type ${type} . ${type}; counter; }`);
    if (pairs.size > 0) lines.push(`add element ${t} ${set} { ${[...pairs].join(', ')} }`);
    lines.push(
      `add rule ${t} from_servers ct status dnat ct original ${ipx} daddr . ${ipx} daddr @${set}`,
    );
  }
  return lines;
}

/** New connections per planned server, from the listed `OPENED_SETS`: 0 for one not counted yet. */
export function openedOf(
  plan: ForwardingPlan,
  listed: ReadonlyMap<string, NftSetElement[]>,
): ByServer<number> {
  const counted = new Map<string, number>();
  for (const set of Object.values(OPENED_SETS))
    for (const e of listed.get(set) ?? [])
      if (e.counter) counted.set(keyOf(e.val), e.counter.packets);
  const opened = new ByServer<number>();
  for (const p of plan.tsas.filter((p) => p.protocols.includes('tcp')))
    for (const s of p.servers)
      opened.set(p.tsa, s.server, counted.get(keyOf({ concat: [p.tsa, s.address] })) ?? 0);
  return opened;
}

function rulesOf(t: string, p: PlannedTsa, reject: string, hashSeed: number): string[] {
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
    bucketValues(
      table,
      p.servers.map((s) => s.address),
    ),
  );
  lines.push(
    `add rule ${t} to_servers ${match} ct state new counter dnat ${ipx} to jhash ${ipx} saddr . tcp sport mod ${table.size} seed ${hashSeed} map { ${map} }`,
  );
  return lines;
}

/** "TSA|address" of each pair a plan forwards. */
export function forwardedKeys(plan: ForwardingPlan): Set<string> {
  return new Set(plan.forwarded.map((f) => `${f.tsa}|${f.address}`));
}

/**
 * The pairs whose conntrack entries go with a new configuration (SPEC §4.1: of a server taken out
 * of a Target Set, of a Target Set deleted or disabled, of a TSA that changed): those `before`
 * forwarded and `after` does not. None before the first.
 */
export function pairsRemoved(
  before: ReadonlySet<string> | null,
  after: ReadonlySet<string>,
): { tsa: string; address: string }[] {
  return [...(before ?? [])]
    .filter((pair) => !after.has(pair))
    .map((pair) => {
      const [tsa = '', address = ''] = pair.split('|');
      return { tsa, address };
    });
}

/**
 * The servers whose conntrack entries go (SPEC §3.1: offline and initializing ones lose their
 * connections): those whose state changed, since `states` (by address, updated), to one that drops
 * existing connections. A server first seen loses nothing.
 */
export function serversDropped(
  states: Map<string, string>,
  plan: ForwardingPlan,
): { address: string; state: string }[] {
  const dropped: { address: string; state: string }[] = [];
  for (const p of plan.tsas) {
    for (const s of p.servers) {
      const before = states.get(s.address);
      states.set(s.address, s.state);
      if (before !== undefined && before !== s.state && s.dropsExisting)
        dropped.push({ address: s.address, state: s.state });
    }
  }
  return dropped;
}

/**
 * The open connections of a conntrack listing of one TSA, each with its server's identity in the
 * plan (PlannedServer.server; the reply source is where its packets go, PlannedServer.address)
 * and named "source:port". TIME_WAIT and CLOSE entries are not open.
 */
export function conntrackFlows(
  tsa: string,
  listing: string,
  serverOf: ReadonlyMap<string, string>,
): { server: string; flow: string }[] {
  const flows: { server: string; flow: string }[] = [];
  for (const line of listing.split('\n')) {
    const fields = [...line.matchAll(/(src|sport)=(\S+)/g)].map((m) => m[2]!);
    // Original src, sport, then the reply's src (the server) and sport.
    if (fields.length < 4 || line.includes('TIME_WAIT') || line.includes('CLOSE')) continue;
    const server = serverOf.get(fields[2]!) ?? fields[2]!;
    flows.push({ server, flow: `${fields[0]}:${fields[1]}` });
  }
  return flows;
}

/** The plan's identity of each server of a TSA by where its packets go: address → server. */
export function serversByAddress(plan: ForwardingPlan, tsa: string): Map<string, string> {
  return new Map(
    plan.tsas
      .filter((p) => p.tsa === tsa)
      .flatMap((p) => p.servers.map((s) => [s.address, s.server] as const)),
  );
}
