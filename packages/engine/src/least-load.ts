/**
 * Least Load (SPEC §3.3). For each candidate s,
 *   L(s) = (Fm·m/mtotal + Fc·c'/ctotal) · Whigh / w,   c' = c + r,
 * with m, mtotal, c, ctotal from s's latest report, Fm + Fc = 100, w its weight, Whigh the
 * highest weight of the list and r the new connections this IPFE gave s in the last second.
 */

import { STATE_RULES, type ServerState, type StateRules } from './server-state.ts';

export interface LoadInputs {
  readonly mpsFactor: number;
  readonly connectionCountFactor: number;
  readonly mps: number;
  readonly mpsCapacity: number;
  readonly connections: number;
  readonly connectionCapacity: number;
  /** New connections given to the server during the last second. */
  readonly recent: number;
  readonly weight: number;
  readonly highestWeight: number;
}

/** L on its 0–100 scale (higher than 100 when a server is past its capacity or lighter weighted). */
export function loadIndex(x: LoadInputs): number {
  return loadOf(
    x.mpsFactor,
    x.connectionCountFactor,
    x.mps,
    x.mpsCapacity,
    x.connections + x.recent,
    x.connectionCapacity,
    x.weight,
    x.highestWeight,
  );
}

/** The same formula with positional arguments, for the decision path; c is c' = c + r. */
export function loadOf(
  fm: number,
  fc: number,
  m: number,
  mTotal: number,
  c: number,
  cTotal: number,
  w: number,
  wHigh: number,
): number {
  const mpsShare = mTotal > 0 ? m / mTotal : 0;
  const connectionShare = cTotal > 0 ? c / cTotal : 0;
  return ((fm * mpsShare + fc * connectionShare) * wHigh) / w;
}

/**
 * How Least Load treats a server for new connections (SPEC §3.3): `allow`, a candidate;
 * `last-resort`, a candidate only when no server is `allow` (stressed); `refuse`, never (weight 0,
 * or a state that refuses new connections).
 */
export function newConnectionRule(weight: number, state: ServerState): StateRules['ownNew'] {
  return weight > 0 ? STATE_RULES[state].ownNew : 'refuse';
}

/**
 * The Least Load candidates among `servers`: those `allow`ed, or, when there is none, the
 * `last-resort` ones (`lastResort` true). The engine keeps the same lists per Target Set.
 */
export function leastLoadCandidates<T>(
  servers: readonly T[],
  ruleOf: (server: T) => StateRules['ownNew'],
): { candidates: T[]; lastResort: boolean } {
  const allowed = servers.filter((s) => ruleOf(s) === 'allow');
  if (allowed.length > 0) return { candidates: allowed, lastResort: false };
  return { candidates: servers.filter((s) => ruleOf(s) === 'last-resort'), lastResort: true };
}

/** The least loaded server takes every new connection when the runner-up is this far above it. */
export function leastTakesAll(lowest: number, runnerUp: number, allowedDeviation: number): boolean {
  return runnerUp - lowest >= allowedDeviation;
}

/** The top of the allowed-deviation band: the candidates at or under it share new connections. */
export function bandTop(lowest: number, allowedDeviation: number): number {
  return lowest + allowedDeviation;
}

/**
 * The choice among candidates (positions in the list, already filtered for state, weight and
 * peer node group) whose loads are `loads[position]`: the least loaded when the runner-up is at
 * least `allowedDeviation` points above it, otherwise smooth weighted round-robin among those
 * within `allowedDeviation` of the least loaded (see swrr.ts; the scores carry over in
 * `current`). Returns a position, or -1 when there is none. Two passes over the candidates.
 */
export function chooseLeastLoaded(
  candidates: Int32Array,
  length: number,
  loads: ArrayLike<number>,
  weights: ArrayLike<number>,
  allowedDeviation: number,
  current: Float64Array,
): number {
  if (length === 0) return -1;
  if (length === 1) return candidates[0] ?? -1;
  let first = -1;
  let l1 = Number.POSITIVE_INFINITY;
  let l2 = Number.POSITIVE_INFINITY;
  for (let i = 0; i < length; i++) {
    const s = candidates[i] ?? 0;
    const l = loads[s] ?? 0;
    if (l < l1) {
      l2 = l1;
      l1 = l;
      first = s;
    } else if (l < l2) {
      l2 = l;
    }
  }
  if (leastTakesAll(l1, l2, allowedDeviation)) return first;
  // Smooth weighted round-robin over those with L ≤ L₁ + allowedDeviation.
  const limit = bandTop(l1, allowedDeviation);
  let total = 0;
  let best = -1;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < length; i++) {
    const s = candidates[i] ?? 0;
    if ((loads[s] ?? 0) > limit) continue;
    const w = weights[s] ?? 0;
    const score = (current[s] ?? 0) + w;
    current[s] = score;
    total += w;
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  current[best] = bestScore - total;
  return best;
}
