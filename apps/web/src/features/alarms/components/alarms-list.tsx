import { Fragment, useId } from 'react';
import { ago, clock, duration } from '@/lib/time';
import type { AlarmRecord, AlarmsView } from '../api/get-alarms';
import { SEVERITY_RANK } from './alarm-summary';

export const SEVERITIES = ['critical', 'major', 'minor'] as const;

export interface AlarmFilter {
  /** A Target Set number, or null for all. */
  targetSet: number | null;
  severity: string | null;
}

export function matches(alarm: AlarmRecord, filter: AlarmFilter): boolean {
  return (
    (filter.targetSet === null || alarm.targetSet === filter.targetSet) &&
    (filter.severity === null || alarm.severity === filter.severity)
  );
}

/** A time that may break between its date and its clock time, nowhere else. */
function Stamp({ iso, now }: { iso: string | null; now: number }) {
  const [date, time] = clock(iso).split(' ');
  return (
    <time dateTime={iso ?? undefined} title={ago(iso, now)}>
      <span className="nowrap">{date}</span>
      {time && (
        <>
          {' '}
          <span className="nowrap">{time}</span>
        </>
      )}
    </time>
  );
}

/** An IPv6 address (or endpoint) may break after a colon rather than widen its column. */
const breakAtColons = (address: string) =>
  address.split(':').map((part, i) => (
    <Fragment key={i}>
      {i > 0 && (
        <>
          :<wbr />
        </>
      )}
      {part}
    </Fragment>
  ));

/** "21 min 51 s" may break between "21 min" and "51 s", never inside one. */
const keepUnits = (span: string) => span.replace(/(\d) /g, '$1\u00a0');

function AlarmTable({
  caption,
  alarms,
  cleared,
  now,
}: {
  caption: string;
  alarms: AlarmRecord[];
  cleared: boolean;
  now: number;
}) {
  return (
    <div className="table-scroll">
      <table className="data-table alarm-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Severity</th>
            <th scope="col">Alarm</th>
            <th scope="col">IPFE</th>
            <th scope="col" className="num">
              Target Set
            </th>
            <th scope="col">Server</th>
            <th scope="col">Text</th>
            <th scope="col">Raised</th>
            {cleared && <th scope="col">Cleared</th>}
            <th scope="col" className="num">
              {cleared ? 'Lasted' : 'For'}
            </th>
          </tr>
        </thead>
        <tbody>
          {alarms.map((a) => (
            <tr key={a.id}>
              <td>
                <span className={`sev sev-${a.severity}`}>{a.severity}</span>
              </td>
              <th scope="row">
                {a.code} {a.name}
              </th>
              <td className="alarm-ipfe">IPFE-{a.slot}</td>
              <td className="num">{a.targetSet ?? '—'}</td>
              <td>{a.server ? <code>{breakAtColons(a.server)}</code> : '—'}</td>
              <td className="alarm-text">{a.text}</td>
              <td>
                <Stamp iso={a.raisedAt} now={now} />
              </td>
              {cleared && (
                <td>
                  <Stamp iso={a.clearedAt} now={now} />
                </td>
              )}
              <td className="num">{keepUnits(duration(a.raisedAt, a.clearedAt, now))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The alarms the IPFEs raised (and the OAM's own "IPFE Unreachable"): the active ones first,
 * worst first, then the history of cleared ones, newest first; both filtered by Target Set and
 * severity.
 */
export function AlarmsList({
  alarms,
  targetSets,
  filter,
  onFilter,
  now,
}: {
  alarms: AlarmsView;
  /** The Target Set numbers to offer in the filter (besides those the alarms name). */
  targetSets: number[];
  filter: AlarmFilter;
  onFilter: (filter: AlarmFilter) => void;
  now: number;
}) {
  const id = useId();
  const numbers = [
    ...new Set([
      ...targetSets,
      ...[...alarms.active, ...alarms.history].flatMap((a) =>
        a.targetSet === null ? [] : [a.targetSet],
      ),
    ]),
  ].sort((a, b) => a - b);
  const active = alarms.active
    .filter((a) => matches(a, filter))
    .sort(
      (a, b) =>
        (SEVERITY_RANK[a.severity] ?? 9) - (SEVERITY_RANK[b.severity] ?? 9) ||
        b.raisedAt.localeCompare(a.raisedAt),
    );
  const history = alarms.history.filter((a) => matches(a, filter));
  const filtered = filter.targetSet !== null || filter.severity !== null;
  return (
    <>
      <form className="filter-bar" aria-label="Filter alarms" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor={`${id}-ts`}>Target Set</label>
        <select
          id={`${id}-ts`}
          className="input"
          value={filter.targetSet ?? ''}
          onChange={(e) =>
            onFilter({
              ...filter,
              targetSet: e.target.value === '' ? null : Number(e.target.value),
            })
          }
        >
          <option value="">All</option>
          {numbers.map((n) => (
            <option key={n} value={n}>
              Target Set {n}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-sev`}>Severity</label>
        <select
          id={`${id}-sev`}
          className="input"
          value={filter.severity ?? ''}
          onChange={(e) => onFilter({ ...filter, severity: e.target.value || null })}
        >
          <option value="">All</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        {filtered && (
          <button
            type="button"
            className="btn btn-link"
            onClick={() => onFilter({ targetSet: null, severity: null })}
          >
            Show all
          </button>
        )}
        <span className="filter-count" aria-live="polite">
          {active.length} active, {history.length} cleared
          {filtered ? ' (filtered)' : ''}
        </span>
      </form>

      <section className="section" aria-labelledby={`${id}-active`}>
        <div className="section-head">
          <h2 id={`${id}-active`}>Active alarms ({active.length})</h2>
          <span className="section-note">Worst first; they clear when the cause goes.</span>
        </div>
        {active.length === 0 ? (
          <p className="section-text">No active alarm{filtered ? ' matches the filter' : ''}.</p>
        ) : (
          <AlarmTable caption="Active alarms" alarms={active} cleared={false} now={now} />
        )}
      </section>

      <section className="section" aria-labelledby={`${id}-history`}>
        <div className="section-head">
          <h2 id={`${id}-history`}>History ({history.length})</h2>
          <span className="section-note">Cleared alarms, newest first.</span>
        </div>
        {history.length === 0 ? (
          <p className="section-text">No cleared alarm{filtered ? ' matches the filter' : ''}.</p>
        ) : (
          <AlarmTable caption="Alarm history" alarms={history} cleared now={now} />
        )}
      </section>
    </>
  );
}
