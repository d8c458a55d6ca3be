import { ChangeList } from '@/components/ui/change-list';
import type { SourceCsvPreview } from '../api/preview-source-csv';

/** What importing the file would do: its problems, the columns not imported, and the changes. */
export function ImportPreview({ preview }: { preview: SourceCsvPreview }) {
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
        <ChangeList
          changes={preview.changes}
          caption="What the import changes"
          empty={
            <p>
              {preview.problems.length === 0
                ? 'None: the file is the running configuration.'
                : 'Shown once the file has no problems in its rows.'}
            </p>
          }
          note={(row) => {
            const overwrite = overwrites.get(row.path);
            return (
              overwrite && (
                <p className="field-warning">
                  <span aria-hidden="true">⚠ </span>
                  Undoes revision {overwrite.revision} by {overwrite.author}, committed after you
                  first previewed this file
                </p>
              )
            );
          }}
        />
      </section>
    </>
  );
}
