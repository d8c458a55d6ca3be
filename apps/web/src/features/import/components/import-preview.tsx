import { changeValue, changeWhat } from '@/lib/change-words';
import type { SourceCsvPreview } from '../api/preview-source-csv';

type Row = { kind: 'Added' | 'Removed' | 'Changed'; path: string; old?: unknown; new?: unknown };

/** What importing the file would do: its problems, the columns not imported, and the changes. */
export function ImportPreview({ preview }: { preview: SourceCsvPreview }) {
  const rows: Row[] = [
    ...preview.changes.added.map((c) => ({ kind: 'Added' as const, path: c.path, new: c.value })),
    ...preview.changes.removed.map((c) => ({
      kind: 'Removed' as const,
      path: c.path,
      old: c.value,
    })),
    ...preview.changes.changed.map((c) => ({
      kind: 'Changed' as const,
      path: c.path,
      old: c.old,
      new: c.new,
    })),
  ];
  const overwrites = new Map(preview.overwrites.map((o) => [o.path, o]));
  return (
    <>
      <section className="import-block" aria-labelledby="import-problems">
        <h2 id="import-problems" className="block-title">
          Problems
        </h2>
        {preview.problems.length === 0 ? (
          <p>None: the file can be committed.</p>
        ) : (
          <ul className="import-problems">
            {preview.problems.map((p, i) => (
              <li key={i}>
                <strong>{p.path}</strong>: {p.message}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="import-block" aria-labelledby="import-not-imported">
        <h2 id="import-not-imported" className="block-title">
          Not imported
        </h2>
        {preview.notImported.length === 0 ? (
          <p>Every column of the file is imported.</p>
        ) : (
          <ul>
            {preview.notImported.map((n) => (
              <li key={`${n.table}.${n.column}`}>
                {n.message} (line {n.line})
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="import-block" aria-labelledby="import-changes">
        <h2 id="import-changes" className="block-title">
          Changes against revision {preview.basedOn}
        </h2>
        {rows.length === 0 ? (
          <p>
            {preview.problems.length === 0
              ? 'None: the file is the running configuration.'
              : 'Shown once the file has no problems in its rows.'}
          </p>
        ) : (
          <div className="table-scroll">
            <table className="data-table">
              <caption className="visually-hidden">What the import changes</caption>
              <thead>
                <tr>
                  <th scope="col">Change</th>
                  <th scope="col">What</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => {
                  const overwrite = overwrites.get(row.path);
                  return (
                    <tr key={`${row.kind}:${row.path}`}>
                      <td>{row.kind}</td>
                      <td>
                        {changeWhat(row.path)}
                        {overwrite && (
                          <p className="field-warning">
                            <span aria-hidden="true">⚠ </span>
                            Undoes revision {overwrite.revision} by {overwrite.author}, committed
                            after you first previewed this file
                          </p>
                        )}
                      </td>
                      <td>{changeValue(row.old)}</td>
                      <td>{changeValue(row.new)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
