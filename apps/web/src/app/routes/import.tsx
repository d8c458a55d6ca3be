import { useId, useState, type ChangeEvent } from 'react';
import { Link } from 'react-router';
import type { RevisionInfo } from '@ipfe/schema';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Loading, Page } from '@/components/ui/page';
import { useImportSourceCsv } from '@/features/import/api/import-source-csv';
import { usePreviewSourceCsv } from '@/features/import/api/preview-source-csv';
import { ImportPreview } from '@/features/import/components/import-preview';
import { ApiError, describeError } from '@/lib/api-client';

/** Import (operators and admins): the source product's bulk-export CSV, previewed, then committed. */
export function ImportRoute() {
  const inputId = useId();
  const [file, setFile] = useState<{ name: string; content: string } | null>(null);
  const [done, setDone] = useState<{ revision: RevisionInfo; unchanged: boolean } | null>(null);
  // The revision this file was first previewed against: a later preview marks what undoes others'.
  const [firstBasedOn, setFirstBasedOn] = useState<number | null>(null);
  const preview = usePreviewSourceCsv();
  const commit = useImportSourceCsv();

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    setDone(null);
    commit.reset();
    if (!chosen) {
      setFile(null);
      preview.reset();
      return;
    }
    const content = await chosen.text();
    setFile({ name: chosen.name, content });
    setFirstBasedOn(null);
    preview.mutate({ content }, { onSuccess: (read) => setFirstBasedOn(read.basedOn) });
  };

  const submit = async () => {
    if (!file || !preview.data) return;
    try {
      const { data, unchanged } = await commit.mutateAsync({
        content: file.content,
        basedOn: preview.data.basedOn,
      });
      setDone({ revision: data, unchanged: unchanged === true });
      preview.reset();
    } catch {
      // Shown from commit.error below.
    }
  };

  // A refused commit is answered first: by Preview again, or by another file.
  const canCommit = preview.data && preview.data.problems.length === 0 && !done && !commit.isError;
  return (
    <Page trail={['Configuration']} title="Import">
      <p className="page-note">
        Import the bulk-export CSV of the source product (tables IpfeOption and IpfeListTsa, and our
        IpfeXsiNetwork, IpfeAppServer, IpfePeerNodeGroup). Each table in the file replaces that part
        of the configuration; the others stay as they are. You see what changes before anything is
        committed.
      </p>
      <div className="field-row">
        <div className="field-label">
          <label htmlFor={inputId}>Source CSV file</label>
        </div>
        <div className="field-control">
          <input
            id={inputId}
            type="file"
            accept=".csv,text/csv,text/plain"
            onChange={(event) => void choose(event)}
          />
        </div>
      </div>
      {done && (
        <Alert
          tone="success"
          title={
            done.unchanged
              ? `Nothing to import: the file is revision ${done.revision.number}, the running configuration.`
              : `Imported ${file?.name ?? 'the file'} as revision ${done.revision.number}.`
          }
        >
          <Link to="/target-sets">See the Target Sets</Link> ·{' '}
          <Link to={`/revisions/${done.revision.number}`}>Revision {done.revision.number}</Link>
        </Alert>
      )}
      {preview.isPending && <Loading what="the preview" />}
      {preview.isError && (
        <Alert tone="error" title={`The file was not read: ${describeError(preview.error)}`} />
      )}
      {commit.isError && (
        <Alert
          tone="error"
          title={
            // The API's own message says so already when the file was previewed too long ago.
            /nothing was committed/i.test(describeError(commit.error))
              ? describeError(commit.error)
              : `Nothing was committed: ${describeError(commit.error)}`
          }
          actions={
            // Someone committed since the preview: compare the file with what runs now.
            commit.error instanceof ApiError &&
            commit.error.code === 'CONFLICT' &&
            file && (
              <Button
                onClick={() => {
                  commit.reset();
                  preview.mutate({ content: file.content, since: firstBasedOn ?? undefined });
                }}
              >
                Preview again
              </Button>
            )
          }
        />
      )}
      {preview.data && (
        <>
          <ImportPreview preview={preview.data} />
          {canCommit && (
            <p>
              <Button variant="primary" onClick={() => void submit()} disabled={commit.isPending}>
                {commit.isPending ? 'Committing…' : 'Commit'}
              </Button>
            </p>
          )}
        </>
      )}
    </Page>
  );
}
