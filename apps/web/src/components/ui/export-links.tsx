/**
 * The running configuration as a download, in every format an operator may look for: our JSON
 * document (what `ipfe apply` and a rollback read), the source product's own bulk file (what its
 * Bulk Import reads back) and our named-column CSV (every part of the configuration).
 */
export function ExportLinks() {
  return (
    <>
      <a className="btn btn-secondary" href="/api/export" download>
        Export (JSON document)
      </a>
      <a className="btn btn-secondary" href="/api/export/source-csv?format=source" download>
        Export (source bulk file)
      </a>
      <a className="btn btn-secondary" href="/api/export/source-csv?format=named" download>
        Export (named-column CSV)
      </a>
    </>
  );
}
