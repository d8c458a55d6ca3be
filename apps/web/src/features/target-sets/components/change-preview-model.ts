import { buildMaglev, maglevTableSize, type MaglevTable } from '@ipfe/engine';

/** One row of a Target Set IP List as far as the choice of a server goes. */
export interface PreviewServer {
  address: string;
  weight: number;
}

export interface ShareRow {
  address: string;
  /** Percent of new connections (Hash: of source keys) with the saved list; null: not listed. */
  saved: number | null;
  /** The same with the edited list; null: not listed. */
  edited: number | null;
}

// A few tables are enough: the saved list's, and the last few edits while typing.
const cache = new Map<string, MaglevTable>();
const CACHE_SIZE = 8;

const signatureOf = (servers: PreviewServer[]) =>
  servers.map((s) => `${s.address}=${s.weight}`).join(',');

/**
 * The Maglev table the engine builds for a Hash Target Set with these servers (the same call as
 * the agent's engine: identity = the server's address, weight as listed).
 */
export function maglevOf(servers: PreviewServer[]): MaglevTable {
  const key = signatureOf(servers);
  const hit = cache.get(key);
  if (hit) return hit;
  const table = buildMaglev(
    servers.map((s) => ({ id: s.address, weight: s.weight })),
    maglevTableSize(servers.length),
  );
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, table);
  return table;
}

/** Each server's share of the table's entries, in percent, by address. */
export function hashShares(servers: PreviewServer[]): Map<string, number> {
  const table = maglevOf(servers);
  return new Map(servers.map((s, i) => [s.address, ((table.counts[i] ?? 0) / table.size) * 100]));
}

/** Each server's chance of selection (weight / Σ weights), in percent, by address. */
export function weightShares(servers: PreviewServer[]): Map<string, number> {
  const total = servers.reduce((sum, s) => sum + s.weight, 0);
  return new Map(servers.map((s) => [s.address, total > 0 ? (s.weight / total) * 100 : 0]));
}

/**
 * The share of source keys (client address and port) that the edited list sends to another
 * server than the saved list does, 0–1: the key space is laid over both tables (a key's entry is
 * ⌊hash·M/2³²⌋, so entry i of a table of size M covers [i/M, (i+1)/M) of it), and the parts
 * whose server differs are added up. Null when either list has no non-zero weight.
 */
export function remappedShare(saved: PreviewServer[], edited: PreviewServer[]): number | null {
  const total = (list: PreviewServer[]) => list.reduce((sum, s) => sum + s.weight, 0);
  if (total(saved) <= 0 || total(edited) <= 0) return null;
  const a = maglevOf(saved);
  const b = maglevOf(edited);
  const idA = (i: number) => saved[a.entries[i] ?? 255]?.address ?? null;
  const idB = (j: number) => edited[b.entries[j] ?? 255]?.address ?? null;
  if (a.size === b.size) {
    let moved = 0;
    for (let i = 0; i < a.size; i++) if (idA(i) !== idB(i)) moved++;
    return moved / a.size;
  }
  let moved = 0;
  let at = 0;
  let i = 0;
  let j = 0;
  while (i < a.size && j < b.size) {
    const endA = (i + 1) / a.size;
    const endB = (j + 1) / b.size;
    const end = Math.min(endA, endB);
    if (idA(i) !== idB(j)) moved += end - at;
    at = end;
    if (endA <= end) i++;
    if (endB <= end) j++;
  }
  return moved;
}

/** Saved and edited shares side by side: the saved list's order, then the servers added. */
export function shareRows(
  saved: PreviewServer[] | null,
  edited: PreviewServer[],
  algorithm: 'hash' | 'leastLoad',
): ShareRow[] {
  const sharesOf = algorithm === 'hash' ? hashShares : weightShares;
  const before = saved ? sharesOf(saved) : new Map<string, number>();
  const after = sharesOf(edited);
  const addresses = [
    ...new Set([...(saved ?? []).map((s) => s.address), ...edited.map((s) => s.address)]),
  ];
  return addresses.map((address) => ({
    address,
    saved: before.get(address) ?? null,
    edited: after.get(address) ?? null,
  }));
}
