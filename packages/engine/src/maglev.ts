import { hashString } from './hash.ts';

/**
 * Maglev consistent hashing (Eisenbud et al., NSDI 2016) with weights: every server walks its
 * own permutation of the table's slots and claims the first free one, in turns, until the table
 * is full. Weights are honoured exactly: each server's number of entries (its quota) is
 * M·w/Σw rounded by largest remainder. The turns are ordered by a clock that depends on nothing
 * but the server's own weight (its k-th turn falls at (k − MAGLEV_LEAD)/w, ties in list order), so
 * removing a server takes its turns out of the sequence and leaves the order of everyone else's
 * as it was. A server over 255 times the others' weight takes what they leave of the table without it
 * (decision 002).
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
/**
 * Turns a server takes ahead of its weight's pace, so that it has taken its last turn while
 * about MAGLEV_LEAD·M/quota slots are still free: a light server never claims in the last,
 * scattered stretch of the fill, where a claim lands far down its permutation (decision 002).
 */
export const MAGLEV_LEAD = 4;
/**
 * A server whose weight is more than this many times the others' together is a giant: the others
 * hold under 1/256 of the table (256 entries), so that two or three of their keys moving would be
 * over 1 % of them, and they are laid out as in the table without it (decision 002).
 */
export const MAGLEV_GIANT_RATIO = 255;

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

const powersBySize = new Map<number, Uint32Array>();

/**
 * g⁰, g¹, …, g^(M−2) mod M for a primitive root g of the prime M: every residue 1…M−1 once.
 * Computed once per table size.
 */
function powersOf(size: number): Uint32Array {
  let powers = powersBySize.get(size);
  if (powers) return powers;
  const g = primitiveRoot(size);
  powers = new Uint32Array(Math.max(1, size - 1));
  let x = 1;
  for (let k = 0; k < powers.length; k++) {
    powers[k] = x;
    x = (x * g) % size;
  }
  powersBySize.set(size, powers);
  return powers;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** The smallest primitive root of the prime p (p < 2²⁶, so that products stay exact). */
function primitiveRoot(p: number): number {
  if (p === 2) return 1;
  const factors: number[] = [];
  let rest = p - 1;
  for (let d = 2; d * d <= rest; d++) {
    if (rest % d !== 0) continue;
    factors.push(d);
    while (rest % d === 0) rest /= d;
  }
  if (rest > 1) factors.push(rest);
  const power = (base: number, exponent: number) => {
    let result = 1;
    let b = base % p;
    for (let e = exponent; e > 0; e = Math.floor(e / 2)) {
      if (e % 2 === 1) result = (result * b) % p;
      b = (b * b) % p;
    }
    return result;
  };
  for (let g = 2; ; g++) {
    if (factors.every((f) => power(g, (p - 1) / f) !== 1)) return g;
  }
}

/**
 * The position of the server that outweighs all the others together MAGLEV_GIANT_RATIO times or
 * more, or −1. Within the schema's weights the table without a giant has none (its giant would need
 * w > 255 × 1 and 255 × (w + 1) < 65,535).
 */
export function maglevGiant(weights: readonly number[]): number {
  let total = 0;
  let heaviest = -1;
  weights.forEach((w, i) => {
    total += w;
    if (heaviest < 0 || w > (weights[heaviest] ?? 0)) heaviest = i;
  });
  const giant = weights[heaviest] ?? 0;
  const rest = total - giant;
  return rest > 0 && MAGLEV_GIANT_RATIO * rest < giant ? heaviest : -1;
}

export function buildMaglev(
  servers: readonly MaglevServer[],
  size: number = maglevTableSize(servers.length),
): MaglevTable {
  if (servers.length > MAGLEV_MAX_SERVERS) {
    throw new RangeError(`Maglev: at most ${MAGLEV_MAX_SERVERS} servers`);
  }
  if (!isPrime(size)) throw new RangeError(`Maglev: table size ${size} is not a prime`);
  if (size >= 2 ** 26) throw new RangeError(`Maglev: table size ${size} is too large`);
  const n = servers.length;
  const entries = new Uint8Array(size).fill(NO_SERVER);
  const counts = new Uint32Array(n);
  const weights = servers.map((s) => s.weight);
  const quotas = maglevQuotas(weights, size);
  // Server i's permutation: its origin o, then o + g^(σ+k·α) for k = 0…M−2 (mod M; α coprime
  // to M−1), o, σ and α three hashes of its address. Not o + k·skip: two servers whose skips
  // have a small ratio p/q mod M walk the same line and take each other's slots (removing one
  // moved up to 7.6 % of the others' keys); nor o + g^(σ+k): two servers with the same origin
  // walk the same path, one behind the other (up to 3.8 %). Here two walks share a line only if
  // both their origins are equal and their strides have a small ratio (decision 002).
  const powers = powersOf(size);
  const period = powers.length;
  const origin = new Int32Array(n);
  const cursor = new Int32Array(n);
  const stride = new Int32Array(n);
  const weight = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const id = servers[i]?.id ?? '';
    origin[i] = hashString(id, 0x0ff5e7) % size;
    cursor[i] = -1 - (hashString(id, 0x5c1b) % period);
    let a = hashString(id, 0x57e9) % period || 1;
    while (gcd(a, period) !== 1) a++;
    stride[i] = a;
    weight[i] = weights[i] ?? 0;
  }

  // With a giant, the others take the entries they would take first in the table without it,
  // and the giant everything else: removing the giant then moves none of their keys, where
  // interleaved with its turns their few entries lay deep down their permutations and one of
  // them, moving, was over 1 % (decision 002). The table without the giant is built as far as
  // every other server has its quota here; what they take beyond it goes to the giant.
  const giant = maglevGiant(weights);
  const paced =
    giant < 0
      ? quotas
      : maglevQuotas(
          weights.map((w, i) => (i === giant ? 0 : w)),
          size,
        );
  const wanted = giant < 0 ? quotas : quotas.map((q, i) => (i === giant ? 0 : q));
  const beyond: number[] = [];
  let missing = 0;
  for (let i = 0; i < n; i++) if ((wanted[i] ?? 0) > 0) missing++;

  /** Records a claim; false once every server has what it wants. */
  const take = (i: number, x: number): boolean => {
    entries[x] = i;
    const taken = (counts[i] ?? 0) + 1;
    counts[i] = taken;
    const want = wanted[i] ?? 0;
    if (taken > want) beyond.push(x);
    else if (taken === want) missing--;
    return missing > 0;
  };
  const claim = (i: number): boolean => {
    const o = origin[i] ?? 0;
    let k = cursor[i] ?? 0;
    if (k < 0) {
      // The first turn: the origin itself, then σ on.
      k = -1 - k;
      if (entries[o] === NO_SERVER) {
        cursor[i] = k;
        return take(i, o);
      }
    }
    const step = (stride[i] ?? 1) - period;
    let x = 0;
    do {
      x = o + (powers[k] ?? 0) - size;
      x += (x >> 31) & size;
      k += step;
      k += (k >> 31) & period;
    } while (entries[x] !== NO_SERVER);
    cursor[i] = k;
    return take(i, x);
  };
  // Server i's k-th turn (k = 1…quota) falls at t = (k − LEAD)/w, equal times in list order.
  // As doubles, two such times (k ≤ M < 2¹⁷, w < 2¹⁶) are equal exactly when the fractions are,
  // and keep their order: two different fractions differ by more than the rounding of either.

  // The lead: the turns at t ≤ 0 (at most LEAD per server), sorted.
  const lead: { i: number; t: number }[] = [];
  for (let i = 0; i < n; i++) {
    const early = Math.min(paced[i] ?? 0, MAGLEV_LEAD);
    for (let k = 1; k <= early; k++) lead.push({ i, t: k - MAGLEV_LEAD });
  }
  lead.sort((a, b) => a.t * (weight[b.i] ?? 0) - b.t * (weight[a.i] ?? 0) || a.i - b.i);
  for (const turn of lead) if (!claim(turn.i)) break;

  // Then t > 0, in rounds of 1/wmax, so that no server has two turns in a round (Bresenham on
  // the weights); a round's turns are sorted by time, so the order does not depend on wmax,
  // i.e. on which servers are in the list.
  const active = new Int32Array(n);
  let live = 0;
  let wmax = 0;
  for (let i = 0; i < n; i++) {
    if ((counts[i] ?? 0) >= (paced[i] ?? 0)) continue;
    active[live++] = i;
    wmax = Math.max(wmax, weight[i] ?? 0);
  }
  const credit = new Float64Array(n);
  const turns = new Float64Array(n);
  const time = new Float64Array(n);
  const round = new Int32Array(n);
  while (live > 0 && missing > 0) {
    let m = 0;
    for (let a = 0; a < live; a++) {
      const i = active[a] ?? 0;
      const w = weight[i] ?? 0;
      const c = (credit[i] ?? 0) + w;
      if (c < wmax) {
        credit[i] = c;
        continue;
      }
      credit[i] = c - wmax;
      const k = (turns[i] ?? 0) + 1;
      turns[i] = k;
      const t = k / w;
      time[i] = t;
      // Insertion by time; servers come in list order, so an equal time stays in front.
      let j = m;
      for (; j > 0; j--) {
        const o = round[j - 1] ?? 0;
        if ((time[o] ?? 0) <= t) break;
        round[j] = o;
      }
      round[j] = i;
      m++;
    }
    let finished = false;
    for (let r = 0; r < m; r++) {
      // Inline claim(): every server here has had its first turn in the lead.
      const i = round[r] ?? 0;
      const o = origin[i] ?? 0;
      let k = cursor[i] ?? 0;
      const step = (stride[i] ?? 1) - period;
      let x = 0;
      do {
        // Both wrap-arounds without a branch, which would be mispredicted about every other
        // slot and cost a quarter of the build.
        x = o + (powers[k] ?? 0) - size;
        x += (x >> 31) & size;
        k += step;
        k += (k >> 31) & period;
      } while (entries[x] !== NO_SERVER);
      cursor[i] = k;
      entries[x] = i;
      const taken = (counts[i] ?? 0) + 1;
      counts[i] = taken;
      const want = wanted[i] ?? 0;
      // wanted ≤ paced: one comparison in the common case.
      if (taken >= want) {
        if (taken > want) beyond.push(x);
        else missing--;
        if (taken === paced[i]) finished = true;
        if (missing === 0) break;
      }
    }
    if (finished) {
      let kept = 0;
      for (let a = 0; a < live; a++) {
        const i = active[a] ?? 0;
        if ((counts[i] ?? 0) < (paced[i] ?? 0)) active[kept++] = i;
      }
      live = kept;
    }
  }
  if (giant >= 0) {
    for (const x of beyond) entries[x] = giant;
    for (let x = 0; x < size; x++) if (entries[x] === NO_SERVER) entries[x] = giant;
    for (let i = 0; i < n; i++) counts[i] = quotas[i] ?? 0;
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
