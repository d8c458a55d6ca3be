import { useId } from 'react';

export interface Share {
  label: string;
  pct: number;
}

const ROW = 20;
const LABEL_WIDTH = 190;
const BAR_WIDTH = 260;
const VALUE_WIDTH = 56;

/**
 * Each server's share of new connections (its chance of selection), as horizontal bars. The
 * figures are also in the IP list; the chart gives the proportions at a glance.
 */
export function ShareChart({ shares, title }: { shares: Share[]; title: string }) {
  const id = useId();
  if (shares.length === 0) return null;
  const height = shares.length * ROW + 4;
  const width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH;
  const description = shares.map((s) => `${s.label}: ${s.pct.toFixed(1)} %`).join('; ');
  return (
    <figure className="share-chart">
      <svg
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        {shares.map((s, i) => {
          const y = i * ROW + 2;
          const w = Math.max(0, Math.min(100, s.pct)) * (BAR_WIDTH / 100);
          return (
            <g key={`${s.label}-${i}`} data-testid="share-bar">
              <text x={LABEL_WIDTH - 8} y={y + 13} textAnchor="end" className="share-label">
                {s.label}
              </text>
              <rect
                x={LABEL_WIDTH}
                y={y + 2}
                width={BAR_WIDTH}
                height={ROW - 6}
                className="share-track"
              />
              <rect x={LABEL_WIDTH} y={y + 2} width={w} height={ROW - 6} className="share-bar" />
              <text x={LABEL_WIDTH + BAR_WIDTH + 6} y={y + 13} className="share-value">
                {s.pct.toFixed(1)} %
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="visually-hidden">{title}</figcaption>
    </figure>
  );
}
