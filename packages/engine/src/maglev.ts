import { hashString } from './hash.ts';

/**
 * Maglev consistent hashing (Eisenbud et al., NSDI 2016) with weights: every server walks its
 * own permutation of the table's slots and claims the first free one, in turns, until the table
 * is full. Weights are honoured exactly: each server's number of entries (its quota) is
 * M·w/Σw rounded by largest remainder, and the turns are interleaved in proportion to the quotas
 * (Bresenham), so every server fills the table at the same pace and a server's removal
 * disturbs the others as little as the unweighted algorithm does.
 */

export interface MaglevServer {
  /** A stable identity (the server's address): its permutation depends on nothing else. */
  readonly id: string;
  readonly weight: number;
}

export interface MaglevTable {
  readonly size: number;
  /** Position of the owning server in the list the table was built from; NO_SERVER when none. */
  readonly entries: Uint8Array;
  /** Entries per server, by position. */
  readonly counts: Uint32Array;
}

export const NO_SERVER = 255;
/** Entries per server are a uint8 position; a Target Set lists at most 32 servers. */
export const MAGLEV_MAX_SERVERS = 254;
/** The table is never smaller than this (a prime), whatever the number of servers. */
export const MAGLEV_MIN_SIZE = 65537;
/** M ≥ 100 × servers (SPEC §3.2). */
export const MAGLEV_ENTRIES_PER_SERVER = 100;

export function isPrime(n: number): boolean {
  if (n < 2 || !Number.isInteger(n)) return false;
  if (n % 2 === 0) return n === 2;
  for (let d = 3; d * d <= n; d += 2) if (n % d === 0) return false;
  return true;
}

export function nextPrime(n: number): number {
  let p = Math.max(2, Math.ceil(n));
  while (!isPrime(p)) p++;
  return p;
}

/** The table size for a list of `servers`: the smallest prime ≥ max(100 × servers, 65537). */
export function maglevTableSize(servers: number): number {
  return nextPrime(Math.max(MAGLEV_ENTRIES_PER_SERVER * servers, MAGLEV_MIN_SIZE));
}

/** Entries per server: M·w/Σw, rounded by largest remainder so that they sum to M. */
export function maglevQuotas(weights: readonly number[], size: number): Uint32Array {
  const quotas = new Uint32Array(weights.length);
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (total <= 0) return quotas;
  const remainders: { index: number; fraction: number }[] = [];
  let given = 0;
  weights.forEach((w, i) => {
    const exact = (size * w) / total;
    const whole = Math.floor(exact);
    quotas[i] = whole;
    given += whole;
    if (w > 0) remainders.push({ index: i, fraction: exact - whole });
  });
  remainders.sort((a, b) => b.fraction - a.fraction || a.index - b.index);
  for (let k = 0; given < size; k++, given++) {
    const r = remainders[k % remainders.length];
    if (r) quotas[r.index] = (quotas[r.index] ?? 0) + 1;
  }
  return quotas;
}

export function buildMaglev(
  servers: readonly MaglevServer[],
  size: number = maglevTableSize(servers.length),
): MaglevTable {
  if (servers.length > MAGLEV_MAX_SERVERS) {
    throw new RangeError(`Maglev: at most ${MAGLEV_MAX_SERVERS} servers`);
  }
  if (!isPrime(size)) throw new RangeError(`Maglev: table size ${size} is not a prime`);
  const n = servers.length;
  const entries = new Uint8Array(size).fill(NO_SERVER);
  const counts = new Uint32Array(n);
  const quotas = maglevQuotas(
    servers.map((s) => s.weight),
    size,
  );
  const position = new Float64Array(n);
  const skip = new Float64Array(n);
  const credit = new Float64Array(n);
  let rounds = 0;
  for (let i = 0; i < n; i++) {
    const id = servers[i]?.id ?? '';
    position[i] = hashString(id, 0x0ff5e7) % size;
    skip[i] = (hashString(id, 0x5c1b) % (size - 1)) + 1;
    rounds = Math.max(rounds, quotas[i] ?? 0);
  }
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < n; i++) {
      const quota = quotas[i] ?? 0;
      if (quota === 0) continue;
      const c = (credit[i] ?? 0) + quota;
      if (c < rounds) {
        credit[i] = c;
        continue;
      }
      credit[i] = c - rounds;
      let p = position[i] ?? 0;
      const step = skip[i] ?? 1;
      while (entries[p] !== NO_SERVER) {
        p += step;
        if (p >= size) p -= size;
      }
      entries[p] = i;
      counts[i] = (counts[i] ?? 0) + 1;
      p += step;
      if (p >= size) p -= size;
      position[i] = p;
    }
  }
  return { size, entries, counts };
}

/**
 * The entry of a 32-bit key hash: ⌊hash · M / 2³²⌋ (multiply and shift, not a division), which
 * maps the hash range evenly onto the table.
 */
export function maglevEntry(keyHash: number, size: number): number {
  return Math.floor((keyHash * size) / 4294967296);
}

/** The server position a key hash maps to, or NO_SERVER when the table is empty. */
export function maglevLookup(table: MaglevTable, keyHash: number): number {
  return table.entries[maglevEntry(keyHash, table.size)] ?? NO_SERVER;
}
