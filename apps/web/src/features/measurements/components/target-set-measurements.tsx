import { TARGET_SET_MEASUREMENTS, type MeasurementName } from '@ipfe/schema';
import { useId } from 'react';
import type { TargetSetMeasurementsView } from '../api/get-measurements';
import { formatRate, formatTotal, measurementTitle, NOT_COUNTED } from './format';
import { RateChart, type RatePoint } from './rate-chart';

interface Row {
  key: string;
  name: MeasurementName;
  /** What the row is of, beside the measurement's name (a server). */
  of?: string;
  total: number | null;
  points: RatePoint[];
}

/** The rate of the last step reported; null: not counted; undefined: no step yet. */
const latestOf = (points: readonly RatePoint[]) => points.at(-1)?.value;

/**
 * One Target Set on the Measurements page: per measurement of it and per server, the rate over
 * the last window as a chart, and the table beside them with the totals and the latest rates.
 */
export function TargetSetMeasurements({
  ts,
  labels,
  now,
  windowSeconds,
  stepSeconds,
}: {
  ts: TargetSetMeasurementsView;
  /** Application server names by address. */
  labels: Map<string, string>;
  now: number;
  windowSeconds: number;
  stepSeconds: number;
}) {
  const id = useId();
  const title = `Target Set ${ts.number}`;
  const rows: Row[] = [
    ...TARGET_SET_MEASUREMENTS.map((name) => ({
      key: name,
      name,
      total: ts.totals[name],
      points: ts.rates.map((r) => ({ at: r.at, value: r[name] })),
    })),
    ...ts.servers.map((s) => ({
      key: `txBytes ${s.address}`,
      name: 'txBytes' as const,
      of: labels.get(s.address) ? `${labels.get(s.address)} ${s.address}` : s.address,
      total: s.txBytes,
      points: s.rates.map((r) => ({ at: r.at, value: r.txBytes })),
    })),
  ];
  const nameOf = (row: Row) =>
    row.of ? `${measurementTitle(row.name)}, ${row.of}` : measurementTitle(row.name);
  return (
    <section className="section ts-status" aria-labelledby={`${id}-h`}>
      <div className="section-head">
        <h2 id={`${id}-h`}>
          {title} <code>{ts.tsa}</code>
        </h2>
      </div>
      <div className="ts-status-body measurements-body">
        <div className="rate-charts">
          {rows.map((row) => (
            <figure key={row.key} className="ts-chart">
              <figcaption>
                {measurementTitle(row.name)}
                {row.of && (
                  <>
                    {' '}
                    <span className="sub-inline">{row.of}</span>
                  </>
                )}
              </figcaption>
              {row.total === null ? (
                <p className="rate-not-counted">{NOT_COUNTED}</p>
              ) : (
                <RateChart
                  title={`${nameOf(row)} per second, ${title}`}
                  points={row.points}
                  now={now}
                  windowSeconds={windowSeconds}
                  stepSeconds={stepSeconds}
                  format={(v) => formatRate(row.name, v)}
                />
              )}
            </figure>
          ))}
        </div>
        <table className="grid-table measurements-table">
          <caption className="visually-hidden">Measurements of {title}</caption>
          <thead>
            <tr>
              <th scope="col">Measurement</th>
              <th scope="col" className="num">
                Total
              </th>
              <th scope="col" className="num">
                Latest rate
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const latest = latestOf(row.points);
              return (
                <tr key={row.key}>
                  <th scope="row">
                    {measurementTitle(row.name)}
                    {row.of && (
                      <>
                        {' '}
                        <span className="sub-inline">{row.of}</span>
                      </>
                    )}
                  </th>
                  <td className="num">{formatTotal(row.name, row.total)}</td>
                  <td className="num">
                    {row.total === null
                      ? NOT_COUNTED
                      : latest === undefined
                        ? '—'
                        : formatRate(row.name, latest)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
