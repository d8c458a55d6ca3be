import { useId } from 'react';

export interface ServerBar {
  label: string;
  value: number | null;
}

const ROW = 18;
const LABEL = 150;
const BAR = 170;
const VALUE = 40;

/**
 * Open connections per server as small horizontal bars (the same figures as the table beside it),
 * scaled to the busiest server.
 */
export function ConnectionsChart({ title, bars }: { title: string; bars: ServerBar[] }) {
  const id = useId();
  if (bars.length === 0) return null;
  const max = Math.max(1, ...bars.map((b) => b.value ?? 0));
  const width = LABEL + BAR + VALUE;
  const height = bars.length * ROW + 4;
  const description = bars
    .map((b) => `${b.label}: ${b.value === null ? 'unknown' : b.value}`)
    .join('; ');
  return (
    <svg
      className="mini-chart"
      role="img"
      aria-labelledby={`${id}-t`}
      aria-describedby={`${id}-d`}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
    >
      <title id={`${id}-t`}>{title}</title>
      <desc id={`${id}-d`}>{description}</desc>
      {bars.map((b, i) => {
        const y = i * ROW + 2;
        const w = ((b.value ?? 0) / max) * BAR;
        return (
          <g key={`${b.label}-${i}`}>
            <text x={LABEL - 6} y={y + 12} textAnchor="end" className="chart-label">
              {b.label}
            </text>
            <rect x={LABEL} y={y + 2} width={BAR} height={ROW - 6} className="chart-track" />
            <rect x={LABEL} y={y + 2} width={w} height={ROW - 6} className="chart-bar" />
            <text x={LABEL + BAR + 5} y={y + 12} className="chart-label">
              {b.value === null ? '—' : b.value}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
