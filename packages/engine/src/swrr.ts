/**
 * Smooth weighted round-robin (the interleaving kind, as in nginx): every pick adds each
 * candidate's weight to its running score, takes the highest score (the first on a tie) and
 * takes the sum of the weights off the winner. Weights 5/1/1 give a a b a c a a, never blocks.
 * Scores live in `current`, indexed like the Target Set's server list, so that the sequence
 * carries on across picks whose candidate sets differ.
 */
export function smoothWeightedPick(
  candidates: Int32Array,
  length: number,
  weights: ArrayLike<number>,
  current: Float64Array,
): number {
  let total = 0;
  let best = -1;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < length; i++) {
    const s = candidates[i] ?? 0;
    const w = weights[s] ?? 0;
    const score = (current[s] ?? 0) + w;
    current[s] = score;
    total += w;
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  if (best >= 0) current[best] = bestScore - total;
  return best;
}
