import { useId } from 'react';

export interface RatePoint {
  /** Start of the step (ISO); its rate per second, or null: not counted. */
  at: string;
  value: number | null;
}

const WIDTH = 280;
const HEIGHT = 74;
const LEFT = 4;
const TOP = 14;
const BOTTOM = 14;
const PLOT_W = WIDTH - LEFT * 2;
const PLOT_H = HEIGHT - TOP - BOTTOM;

/**
 * The runs of points to draw as lines: a step that no IPFE reported (more than 1.5 steps after
 * the one before) or one not counted breaks the line, so that a gap is not drawn as a slope.
 */
export function runsOf(points: readonly RatePoint[], stepMs: number): { t: number; v: number }[][] {
  const runs: { t: number; v: number }[][] = [];
  let run: { t: number; v: number }[] = [];
  let last = -Infinity;
  for (const p of points) {
    const t = Date.parse(p.at);
    if (p.value === null || t - last > stepMs * 1.5) {
      if (run.length) runs.push(run);
      run = [];
    }
    if (p.value !== null) run.push({ t, v: p.value });
    last = t;
  }
  if (run.length) runs.push(run);
  return runs;
}

/**
 * A rate over the last window as a small line chart (the same figures as the table beside it),
 * scaled from 0 to the highest rate, the window's start at the left and `now` at the right.
 */
export function RateChart({
  title,
  points,
  now,
  windowSeconds,
  stepSeconds,
  format,
}: {
  title: string;
  points: readonly RatePoint[];
  now: number;
  windowSeconds: number;
  stepSeconds: number;
  format: (perSecond: number) => string;
}) {
  const id = useId();
  const from = now - windowSeconds * 1000;
  const runs = runsOf(
    points.filter((p) => Date.parse(p.at) >= from),
    stepSeconds * 1000,
  );
  const values = runs.flat().map((p) => p.v);
  const max = Math.max(0, ...values);
  const latest = runs.at(-1)?.at(-1)?.v;
  const x = (t: number) => LEFT + ((t - from) / (now - from)) * PLOT_W;
  const y = (v: number) => TOP + PLOT_H - (max > 0 ? (v / max) * PLOT_H : 0);
  const minutes = Math.round(windowSeconds / 60);
  const description =
    values.length === 0
      ? 'No figures yet'
      : `Latest ${format(latest ?? 0)}, highest ${format(max)}, over the last ${minutes} min`;
  return (
    <svg
      className="mini-chart rate-chart"
      role="img"
      aria-labelledby={`${id}-t`}
      aria-describedby={`${id}-d`}
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
    >
      <title id={`${id}-t`}>{title}</title>
      <desc id={`${id}-d`}>{description}</desc>
      <rect x={LEFT} y={TOP} width={PLOT_W} height={PLOT_H} className="chart-track" />
      <text x={LEFT} y={TOP - 3} className="chart-note">
        {values.length === 0 ? 'no figures yet' : `max ${format(max)}`}
      </text>
      <line
        x1={LEFT}
        x2={LEFT + PLOT_W}
        y1={TOP + PLOT_H}
        y2={TOP + PLOT_H}
        className="chart-axis"
      />
      {runs.map((run, i) =>
        run.length === 1 ? (
          <circle key={i} cx={x(run[0]!.t)} cy={y(run[0]!.v)} r={1.8} className="rate-dot" />
        ) : (
          <polyline
            key={i}
            points={run.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ')}
            className="rate-line"
          />
        ),
      )}
      <text x={LEFT} y={HEIGHT - 2} className="chart-note">
        −{minutes} min
      </text>
      <text x={LEFT + PLOT_W} y={HEIGHT - 2} textAnchor="end" className="chart-note">
        now
      </text>
    </svg>
  );
}
