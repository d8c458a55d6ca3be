import { useId } from 'react';
import { formatLoad, VERDICT_WORDS, type LeastLoadPicture } from './least-load-model';

const ROW = 22;
const LABEL = 150;
const PLOT = 300;
const TAG = 90;
const TOP = 18;
const AXIS = 22;

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above `value`. */
export function niceCeil(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value - 1e-9) return step * power;
  return 10 * power;
}

/**
 * The Least Load picture as a chart: every server's L on one axis, the lowest L among the
 * candidates and the band of allowed deviation above it, each bar coloured by what the choice
 * makes of it (in the band, above it, excluded). `labels` name the servers.
 */
export function LeastLoadChart({
  title,
  picture,
  labels,
}: {
  title: string;
  picture: LeastLoadPicture;
  labels: Map<string, string>;
}) {
  const id = useId();
  const loads = picture.servers.map((s) => s.load ?? 0);
  const axisMax = niceCeil(Math.max(1, ...loads, picture.bandTop ?? 0) * 1.1);
  const x = (value: number) => LABEL + (Math.min(value, axisMax) / axisMax) * PLOT;
  const width = LABEL + PLOT + TAG;
  const height = TOP + picture.servers.length * ROW + AXIS;
  const plotBottom = TOP + picture.servers.length * ROW;
  const ticks = [0, 1, 2, 3, 4, 5].map((i) => (axisMax * i) / 5);
  const description = [
    picture.lowest === null
      ? 'No candidate server.'
      : `Lowest L ${formatLoad(picture.lowest)}; band up to ${formatLoad(picture.bandTop)} (allowed deviation ${picture.allowedDeviation}).`,
    ...picture.servers.map(
      (s) => `${labels.get(s.address) ?? s.address}: L ${formatLoad(s.load)}, ${s.reason}.`,
    ),
    picture.summary,
  ].join(' ');
  return (
    <svg
      className="ll-chart"
      role="img"
      aria-labelledby={`${id}-t`}
      aria-describedby={`${id}-d`}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
    >
      <title id={`${id}-t`}>{title}</title>
      <desc id={`${id}-d`}>{description}</desc>
      {picture.lowest !== null && picture.bandTop !== null && (
        <g>
          <rect
            x={x(picture.lowest)}
            y={TOP - 4}
            width={Math.max(2, x(picture.bandTop) - x(picture.lowest))}
            height={plotBottom - TOP + 4}
            className="ll-zone"
          />
          <line
            x1={x(picture.lowest)}
            x2={x(picture.lowest)}
            y1={TOP - 6}
            y2={plotBottom}
            className="ll-lowest"
          />
          <text x={x(picture.lowest) + 3} y={TOP - 7} className="chart-note">
            lowest L {formatLoad(picture.lowest)} · band +{picture.allowedDeviation}
          </text>
        </g>
      )}
      {picture.servers.map((s, i) => {
        const y = TOP + i * ROW;
        const w = s.load === null ? 0 : Math.max(1.5, x(s.load) - LABEL);
        return (
          <g key={s.address}>
            <text x={LABEL - 6} y={y + 15} textAnchor="end" className="chart-label">
              {labels.get(s.address) ?? s.address}
            </text>
            <rect
              x={LABEL}
              y={y + 5}
              width={w}
              height={ROW - 10}
              className={`ll-bar ll-${s.verdict}`}
            />
            <text x={LABEL + PLOT + 6} y={y + 15} className={`chart-label ll-tag-${s.verdict}`}>
              {VERDICT_WORDS[s.verdict]}
            </text>
          </g>
        );
      })}
      <line x1={LABEL} x2={LABEL + PLOT} y1={plotBottom} y2={plotBottom} className="chart-axis" />
      {ticks.map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={plotBottom} y2={plotBottom + 4} className="chart-axis" />
          <text x={x(t)} y={plotBottom + 15} textAnchor="middle" className="chart-note">
            {Number.isInteger(t) ? t : t.toFixed(1)}
          </text>
        </g>
      ))}
      <text x={LABEL - 6} y={plotBottom + 15} textAnchor="end" className="chart-note">
        L (0–100)
      </text>
    </svg>
  );
}
