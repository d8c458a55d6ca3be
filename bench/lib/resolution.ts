import { median, round } from './stats.ts';

/**
 * What a differential cost can resolve. The dataplane part takes a path's cost in a round as its
 * run minus the mean of the two baseline runs around it, and reports the median over the rounds.
 * The baseline runs alone show the method's noise: two successive ones measure the same thing,
 * so their difference is noise only (run to run, and the machine's drift over two runs' time).
 *
 * σ of one run = 1.4826 × the median |difference| ÷ √2 (robust: a disturbed run — another job's
 * burst — moves two differences, as it moves the two costs beside it, which the median over
 * rounds leaves aside); a cost, one run minus the mean of two, has σ·√1.5; the resolution is two
 * standard errors of a median of `rounds` costs: 2·√(π/2)·σ·√1.5 ÷ √rounds. A cost at or below
 * it cannot be told from nothing and is never made into a ratio. Null: fewer than three baseline
 * runs.
 */
export function resolutionOf(baseline: readonly number[], rounds: number): number | null {
  const differences: number[] = [];
  for (let i = 1; i < baseline.length; i++) {
    const d = baseline[i]! - baseline[i - 1]!;
    if (Number.isFinite(d)) differences.push(d);
  }
  if (differences.length < 2 || rounds < 1) return null;
  const sigma = (1.4826 * median(differences.map(Math.abs))) / Math.SQRT2;
  return (2 * Math.sqrt(Math.PI / 2) * sigma * Math.sqrt(1.5)) / Math.sqrt(rounds);
}

/**
 * Two standard errors of a median of `rounds` values whose true value is nil, from such values
 * (σ = 1.4826 × their median magnitude).
 */
export function nilResolution(nil: readonly number[], rounds: number): number | null {
  const finite = nil.filter(Number.isFinite);
  if (finite.length < 2 || rounds < 1) return null;
  const sigma = 1.4826 * median(finite.map(Math.abs));
  return (2 * Math.sqrt(Math.PI / 2) * sigma) / Math.sqrt(rounds);
}

/** A cost as the bench reports it: the figure, or null with why when it is within the noise. */
export interface Resolved {
  value: number | null;
  belowResolution: boolean;
  resolution: number | null;
  note?: string;
}

export function resolve(median: number, resolution: number | null, unit: string): Resolved {
  const r = resolution === null ? null : round(resolution, 1);
  if (!Number.isFinite(median)) return { value: null, belowResolution: false, resolution: r };
  const limit = resolution ?? 0;
  if (median > limit) return { value: round(median, 1), belowResolution: false, resolution: r };
  return {
    value: null,
    belowResolution: true,
    resolution: r,
    note:
      resolution === null
        ? `not above zero (${round(median, 1)} ${unit}; resolution unknown)`
        : `below resolution (±${r} ${unit}; median ${round(median, 1)})`,
  };
}

/**
 * HAProxy's cost ÷ ours, each known to ± its resolution. Ours within its resolution: no ratio,
 * only the bound that its resolution allows (HAProxy's low end ÷ ours at most).
 */
export function costRatio(
  theirs: { median: number; resolution: number | null },
  ours: { median: number; resolution: number | null },
): {
  value: number | null;
  range: [number | null, number | null] | null;
  belowResolution: boolean;
  atLeast: number | null;
  note?: string;
} {
  const rt = theirs.resolution ?? 0;
  const ro = ours.resolution ?? 0;
  if (!(theirs.median > rt))
    return {
      value: null,
      range: null,
      belowResolution: true,
      atLeast: null,
      note: 'HAProxy’s cost is below resolution: no ratio',
    };
  if (!(ours.median > ro)) {
    const atLeast =
      ro > 0 ? round((theirs.median - rt) / (Math.max(ours.median, 0) + ro), 1) : null;
    return {
      value: null,
      range: null,
      belowResolution: true,
      atLeast,
      note:
        `our cost is below resolution (±${round(ro, 1)}): no ratio` +
        (atLeast === null ? '' : `; HAProxy’s cost is at least ${atLeast} times ours`),
    };
  }
  return {
    value: round(theirs.median / ours.median, 2),
    range: [
      round((theirs.median - rt) / (ours.median + ro), 2),
      round((theirs.median + rt) / (ours.median - ro), 2),
    ],
    belowResolution: false,
    atLeast: null,
  };
}
