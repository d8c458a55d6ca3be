/** Nearest-rank percentile (p in 0–100) of unsorted values; NaN when there are none. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(n, Math.max(1, Math.ceil((p / 100) * n)));
  return sorted[rank - 1]!;
}

export const median = (values: ArrayLike<number>) => {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
};

/** Rounds to `digits` decimals (figures in JSON need no more precision than they carry). */
export const round = (value: number, digits = 1) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : null;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The agent tests' polling helper, the one `until` (polls every 100 ms unless told). */
export { until } from '../../apps/agent/test/poll.ts';
