import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { clock } from '@/lib/time';
import type { RevisionInfo } from '../api/get-revisions';

/**
 * The revision log, newest first: each revision can be viewed, compared with the one before it,
 * or rolled back to (which commits its content as a new revision). Any two can be compared.
 */
export function RevisionsList({
  revisions,
  onRollback,
}: {
  revisions: RevisionInfo[];
  /** Absent for viewers. */
  onRollback?: (revision: number) => void;
}) {
  const navigate = useNavigate();
  const latest = revisions[0]?.number ?? 0;
  const numbers = [...revisions.map((r) => r.number), 0];
  const [from, setFrom] = useState(String(revisions[1]?.number ?? 0));
  const [to, setTo] = useState(String(latest));
  return (
    <>
      <form
        className="compare-form"
        aria-label="Compare revisions"
        onSubmit={(event) => {
          event.preventDefault();
          void navigate(`/revisions/diff?from=${from}&to=${to}`);
        }}
      >
        <label htmlFor="diff-from">From revision</label>
        <select
          id="diff-from"
          className="input"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
        >
          {numbers.map((n) => (
            <option key={n} value={n}>
              {n === 0 ? '0 (empty)' : n}
            </option>
          ))}
        </select>
        <label htmlFor="diff-to">To revision</label>
        <select id="diff-to" className="input" value={to} onChange={(e) => setTo(e.target.value)}>
          {numbers.map((n) => (
            <option key={n} value={n}>
              {n === 0 ? '0 (empty)' : n}
            </option>
          ))}
        </select>
        <Button type="submit" variant="primary">
          Compare
        </Button>
      </form>
      {revisions.length === 0 ? (
        <div className="empty">
          <p>No revision yet: every saved change of the configuration becomes one.</p>
        </div>
      ) : (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Configuration revisions, newest first</caption>
            <thead>
              <tr>
                <th scope="col" className="num">
                  Revision
                </th>
                <th scope="col">Time</th>
                <th scope="col">Author</th>
                <th scope="col">Summary</th>
                <th scope="col">SHA-256</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {revisions.map((r) => (
                <tr key={r.number}>
                  <th scope="row" className="num">
                    {r.number}
                    {r.number === latest && <span className="sub">running</span>}
                  </th>
                  <td>
                    <time dateTime={r.createdAt}>{clock(r.createdAt)}</time>
                  </td>
                  <td>{r.author}</td>
                  <td>{r.summary}</td>
                  <td>
                    <code title={r.sha256}>{r.sha256.slice(0, 12)}</code>
                  </td>
                  <td className="actions">
                    <Link to={`/revisions/${r.number}`} aria-label={`View revision ${r.number}`}>
                      View
                    </Link>
                    <Link
                      to={`/revisions/diff?from=${r.number - 1}&to=${r.number}`}
                      aria-label={`Changes of revision ${r.number}`}
                    >
                      Changes
                    </Link>
                    {onRollback && r.number !== latest && (
                      <Button
                        variant="link"
                        aria-label={`Roll back to revision ${r.number}`}
                        onClick={() => onRollback(r.number)}
                      >
                        Roll back
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
