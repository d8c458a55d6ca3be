import type { ForwardingPlan } from '@ipfe/engine';
import { canonicalIp } from '@ipfe/schema';
import type { PortPackets } from './data-plane.ts';
import { COUNTED, PORT_COUNTED, recordSetOf } from './direct-nft-script.ts';
import { forwardedPortsOf } from './nft-policies.ts';
import { ByServer } from './by-server.ts';
import type { FlowRecord } from './flow-sharing.ts';
import type { NftSetElement } from './nft.ts';

/** The counters of the direct path's table, from its listed counted sets. */
export interface DirectCounters {
  /** New connections per planned server. */
  opened: ByServer<number>;
  /** New connections refused per Target Set. */
  refused: Map<number, number>;
  /** Bytes in (client to server) per TSA, where its set lists them. */
  bytesIn: Map<string, number>;
  /** Packets in per TSA, where its set lists them. */
  packetsIn: Map<string, number>;
  /** Per forwarded port: every packet, and those dropped above the rate limit. */
  ports: Map<number, PortPackets>;
}

export function countersOf(
  plan: ForwardingPlan,
  serverIds: ReadonlyMap<string, number>,
  listed: ReadonlyMap<string, NftSetElement[]>,
): DirectCounters {
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
  const opened = new ByServer<number>();
  const refused = new Map<number, number>();
  const bytesIn = new Map<string, number>();
  const packetsIn = new Map<string, number>();
  for (const p of plan.tsas) {
    const family = p.family === 6 ? 6 : 4;
    refused.set(
      p.targetSet,
      (refused.get(p.targetSet) ?? 0) + (counter(COUNTED.refused[family], p.tsa)?.packets ?? 0),
    );
    const inbound = counter(COUNTED.in[family], p.tsa);
    if (inbound !== undefined) {
      bytesIn.set(p.tsa, inbound.bytes);
      packetsIn.set(p.tsa, inbound.packets);
    }
    for (const s of p.servers) {
      const sid = serverIds.get(s.address) ?? 0;
      opened.set(p.tsa, s.server, counter(COUNTED.opened[family], p.tsa, sid)?.packets ?? 0);
    }
  }
  const ports = new Map<number, PortPackets>();
  for (const port of forwardedPortsOf(plan))
    ports.set(port, {
      packets: counter(PORT_COUNTED.packets, port)?.packets ?? 0,
      dropped: counter(PORT_COUNTED.throttled, port)?.packets ?? 0,
    });
  return { opened, refused, bytesIn, packetsIn, ports };
}

/** This node's flow records, by TSA (for counts, and for the mate), from its listed record sets. */
export function recordsOf(
  plan: ForwardingPlan,
  serverIds: ReadonlyMap<string, number>,
  listed: ReadonlyMap<string, NftSetElement[]>,
): Map<string, FlowRecord[]> {
  const byTsa = new Map<string, FlowRecord[]>(plan.tsas.map((p) => [p.tsa, []]));
  // Which TSA and server each record set belongs to, by set name.
  const owners = new Map<string, { tsa: string; server: string }>();
  for (const p of plan.tsas)
    for (const s of p.servers)
      owners.set(recordSetOf(p.tsa, serverIds.get(s.address) ?? 0), {
        tsa: p.tsa,
        server: s.address,
      });
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

/** Open flows per planned server, and in all, from the records. */
export function activeOf(
  plan: ForwardingPlan,
  recordsByTsa: ReadonlyMap<string, readonly FlowRecord[]>,
): { active: ByServer<number>; connections: number } {
  const active = new ByServer<number>();
  let connections = 0;
  for (const p of plan.tsas) {
    const records = recordsByTsa.get(p.tsa) ?? [];
    for (const s of p.servers) {
      const n = records.filter((r) => r.server === s.address).length;
      active.set(p.tsa, s.server, n);
      connections += n;
    }
  }
  return { active, connections };
}

/** A counted set's key as `address` or `address|id` (nft lists addresses in their short form). */
export function keyOf(val: unknown): string {
  if (typeof val === 'string') return canonicalIp(val);
  const concat = (val as { concat?: unknown[] } | null)?.concat;
  if (Array.isArray(concat))
    return concat.map((v) => (typeof v === 'string' ? canonicalIp(v) : String(v))).join('|');
  return String(val);
}
