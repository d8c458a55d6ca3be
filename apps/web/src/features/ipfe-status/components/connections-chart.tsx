import { useId } from 'react';

export interface ServerBar {
  label: string;
  value: number | null;
}

const ROW = 18;
const BAR = 170;
const VALUE = 40;
/** Room per character of a label (11.5 px text, generously), and the longest label shown whole. */
const CHAR = 7;
const LONGEST = 40;

const shown = (label: string) =>
  label.length > LONGEST ? `${label.slice(0, LONGEST - 1)}…` : label;

/**
 * Open connections per server as small horizontal bars (the same figures as the table beside it),
 * scaled to the busiest server.
 */
export function ConnectionsChart({ title, bars }: { title: string; bars: ServerBar[] }) {
  const id = useId();
  if (bars.length === 0) return null;
  const max = Math.max(1, ...bars.map((b) => b.value ?? 0));
  // The labels end at the bars: as wide as the longest, so that none is cut at the left edge.
  const labelWidth = Math.max(150, Math.max(...bars.map((b) => shown(b.label).length)) * CHAR + 6);
  const width = labelWidth + BAR + VALUE;
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
            <text x={labelWidth - 6} y={y + 12} textAnchor="end" className="chart-label">
              {shown(b.label)}
            </text>
            <rect x={labelWidth} y={y + 2} width={BAR} height={ROW - 6} className="chart-track" />
            <rect x={labelWidth} y={y + 2} width={w} height={ROW - 6} className="chart-bar" />
            <text x={labelWidth + BAR + 5} y={y + 12} className="chart-label">
              {b.value === null ? '—' : b.value}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
