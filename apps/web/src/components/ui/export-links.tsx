/**
 * The running configuration as a download, in both formats an operator may look for: our JSON
 * document (what `ipfe apply` and a rollback read) and the source product's bulk-export CSV.
 */
export function ExportLinks() {
  return (
    <>
      <a className="btn btn-secondary" href="/api/export" download>
        Export (JSON document)
      </a>
      <a className="btn btn-secondary" href="/api/export/source-csv" download>
        Export (source CSV)
      </a>
    </>
  );
}
