import type { ConfigDiff } from '@ipfe/schema';
import type { ReactNode } from 'react';
import { changeRows, changeValue, changeWhat, type ChangeRow } from '@/lib/change-words';

/**
 * What a commit would change, in the GUI's words, as the import preview and the rollback
 * confirmation both say it: how many changes, then one row each. The rows scroll in their own box
 * (a dialog's buttons stay in view below a long list).
 */
export function ChangeList({
  changes,
  caption,
  empty,
  note,
}: {
  changes: ConfigDiff;
  /** The table's name for assistive technology ("What the import changes"). */
  caption: string;
  /** Said instead of the table when nothing changes. */
  empty: ReactNode;
  /** More about one change, under its name (an import's change that undoes a later commit). */
  note?: (row: ChangeRow) => ReactNode;
}) {
  const rows = changeRows(changes);
  if (rows.length === 0) return <>{empty}</>;
  return (
    <>
      <p className="change-count">
        {rows.length} change{rows.length === 1 ? '' : 's'}
      </p>
      {/* Focusable: a keyboard scrolls a long list. */}
      <div className="table-scroll change-list" tabIndex={0} role="region" aria-label={caption}>
        <table className="data-table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Change</th>
              <th scope="col">What</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.kind}:${row.path}`} className={`change-${row.kind.toLowerCase()}`}>
                <td>{row.kind}</td>
                <td>
                  {changeWhat(row.path)}
                  {note?.(row)}
                </td>
                <td>{changeValue(row.old)}</td>
                <td>{changeValue(row.new)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
