import { useId } from 'react';
import { ChangeList } from '@/components/ui/change-list';
import type { SourceCsvPreview } from '../api/preview-source-csv';
import { FORMAT_NAMES } from '../formats';

/** The servers the file's IP lists need and this OAM lacks, and the operator's answer. */
function ServersToCreate({
  preview,
  onCreateServers,
  busy,
}: {
  preview: SourceCsvPreview;
  onCreateServers?: ((create: boolean) => void) | undefined;
  busy?: boolean | undefined;
}) {
  const checkId = useId();
  const offers = preview.serversToCreate;
  const n = offers.length;
  return (
    <section className="import-block" aria-labelledby="import-servers">
      <h2 id="import-servers" className="block-title">
        Application servers to create
      </h2>
      <p>
        The file&apos;s IP lists name addresses that are no application server here. Each server
        below can be created, named after its address, on the XSI network that holds it; an address
        no XSI network holds is a problem above.
      </p>
      <div className="table-scroll">
        <table className="data-table">
          <caption className="visually-hidden">Application servers the import can create</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Addresses</th>
              <th scope="col">XSI network</th>
              <th scope="col">Listed on line</th>
            </tr>
          </thead>
          <tbody>
            {offers.map((o) => (
              <tr key={o.name}>
                <td>{o.name}</td>
                <td>{o.addresses.join(', ')}</td>
                <td>{[...new Set(o.xsiNetworks)].join(', ')}</td>
                <td>{o.lines.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {onCreateServers && (
        <p className="checkbox">
          <input
            id={checkId}
            type="checkbox"
            checked={preview.createServers}
            disabled={busy}
            onChange={(event) => onCreateServers(event.target.checked)}
          />{' '}
          <label htmlFor={checkId}>
            Create {n === 1 ? 'this application server' : `these ${n} application servers`} with the
            import (one commit)
          </label>
        </p>
      )}
    </section>
  );
}

/**
 * What importing the file would do: how it was read, its problems, the columns not imported, the
 * application servers it can create, and the changes.
 */
export function ImportPreview({
  preview,
  onCreateServers,
  busy,
}: {
  preview: SourceCsvPreview;
  /** Takes, or declines, the offer of the servers to create (previewed again). */
  onCreateServers?: (create: boolean) => void;
  busy?: boolean;
}) {
  const overwrites = new Map(preview.overwrites.map((o) => [o.path, o]));
  const format = FORMAT_NAMES[preview.format];
  return (
    <>
      <section className="import-block" aria-labelledby="import-read-as">
        <h2 id="import-read-as" className="block-title">
          Read as
        </h2>
        <p>
          {format.label}: {format.detail}.
        </p>
        {preview.notes.length > 0 && (
          <ul>
            {preview.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        )}
      </section>
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
              <li key={`${n.table}.${n.column}.${n.line}`}>
                {n.message} (line {n.line})
              </li>
            ))}
          </ul>
        )}
      </section>
      {preview.serversToCreate.length > 0 && (
        <ServersToCreate preview={preview} onCreateServers={onCreateServers} busy={busy} />
      )}
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
