/** Hand-built forwarding plans for the data paths' table tests (small tables, read at a glance). */
import type { ForwardingPlan, MaglevTable, PlannedServer, PlannedTsa } from '@ipfe/engine';

/** A bucket table of `entries` (server positions), as the engine builds them. */
export function table(...entries: number[]): MaglevTable {
  const counts = new Uint32Array(Math.max(0, ...entries) + 1);
  for (const e of entries) counts[e] = (counts[e] ?? 0) + 1;
  return { size: entries.length, entries: Uint8Array.from(entries), counts };
}

export function server(address: string, parts: Partial<PlannedServer> = {}): PlannedServer {
  return {
    server: address,
    address,
    state: 'normal',
    weight: 100,
    takesNew: true,
    dropsExisting: false,
    initiatorPorts: null,
    ...parts,
  };
}

export function tsa(address: string, parts: Partial<PlannedTsa> = {}): PlannedTsa {
  const buckets = table(0, 1, 0);
  return {
    targetSet: 1,
    tsa: address,
    family: address.includes(':') ? 6 : 4,
    secondary: false,
    ports: [80],
    protocols: ['tcp'],
    algorithm: 'hash',
    deleteAgeSeconds: 600,
    announce: 'arp',
    servers: [server('10.1.0.1'), server('10.1.0.2')],
    newConnections: buckets,
    newByWeight: buckets,
    existingConnections: buckets,
    adoptWindowMs: 60_000,
    ...parts,
  };
}

export function plan(tsas: PlannedTsa[], parts: Partial<ForwardingPlan> = {}): ForwardingPlan {
  return {
    revision: 1,
    reject: 'tcpReset',
    sctpReject: 'drop',
    packetRateLimitPps: 500_000,
    tsas,
    forwarded: tsas.flatMap((p) => p.servers.map((s) => ({ tsa: p.tsa, address: s.address }))),
    ...parts,
  };
}
