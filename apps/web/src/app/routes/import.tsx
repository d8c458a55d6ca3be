import { useId, useState, type ChangeEvent } from 'react';
import { Link } from 'react-router';
import {
  IMPORT_FILE_FORMATS,
  type ImportFileFormat,
  type RevisionInfo,
  type SourceCsvPreview,
} from '@ipfe/schema';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Loading, Page } from '@/components/ui/page';
import { useImportSourceCsv } from '@/features/import/api/import-source-csv';
import { usePreviewSourceCsv } from '@/features/import/api/preview-source-csv';
import { ImportPreview } from '@/features/import/components/import-preview';
import { FORMAT_NAMES } from '@/features/import/formats';
import { ApiError, describeError } from '@/lib/api-client';

type Layout = ImportFileFormat | 'asShown';

/**
 * Import (operators and admins): the source product's bulk file, or our named-column CSV,
 * previewed, then committed — with the application servers it names, when the operator says so.
 */
export function ImportRoute() {
  const inputId = useId();
  const layoutId = useId();
  const [file, setFile] = useState<{ name: string; content: string } | null>(null);
  const [layout, setLayout] = useState<Layout>('asShown');
  const [createServers, setCreateServers] = useState(false);
  const [done, setDone] = useState<{ revision: RevisionInfo; unchanged: boolean } | null>(null);
  // The revision this file was first previewed against: a later preview marks what undoes others'.
  const [firstBasedOn, setFirstBasedOn] = useState<number | null>(null);
  const preview = usePreviewSourceCsv();
  // The last preview stays on the page while the next one is asked (the offer's checkbox keeps
  // the keyboard's focus).
  const [shown, setShown] = useState<SourceCsvPreview | null>(null);
  const commit = useImportSourceCsv();
  const format = layout === 'asShown' ? undefined : layout;

  const previewFile = (
    content: string,
    ask: { format: ImportFileFormat | undefined; createServers: boolean },
    since?: number,
  ) =>
    preview.mutate(
      { content, since, ...ask },
      {
        onSuccess: (read) => {
          setShown(read);
          setFirstBasedOn((first) => first ?? read.basedOn);
        },
        onError: () => setShown(null),
      },
    );

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    setDone(null);
    commit.reset();
    setCreateServers(false);
    setFirstBasedOn(null);
    setShown(null);
    if (!chosen) {
      setFile(null);
      preview.reset();
      return;
    }
    const content = await chosen.text();
    setFile({ name: chosen.name, content });
    previewFile(content, { format, createServers: false });
  };

  const chooseLayout = (next: Layout) => {
    setLayout(next);
    setCreateServers(false);
    commit.reset();
    if (file && !done) {
      previewFile(file.content, {
        format: next === 'asShown' ? undefined : next,
        createServers: false,
      });
    }
  };

  const takeOffer = (create: boolean) => {
    setCreateServers(create);
    commit.reset();
    if (file) previewFile(file.content, { format, createServers: create });
  };

  const submit = async () => {
    if (!file || !shown) return;
    try {
      const { data, unchanged } = await commit.mutateAsync({
        content: file.content,
        basedOn: shown.basedOn,
        format: shown.format,
        createServers: shown.createServers,
      });
      setDone({ revision: data, unchanged: unchanged === true });
      setShown(null);
      preview.reset();
    } catch {
      // Shown from commit.error below.
    }
  };

  // A refused commit is answered first: by Preview again, or by another file.
  const canCommit =
    shown && shown.problems.length === 0 && !done && !commit.isError && !preview.isPending;
  return (
    <Page trail={['Configuration']} title="Import">
      <p className="page-note">
        Import the source product&apos;s own bulk file (its IPFE Options and ListTsa records), or
        this OAM&apos;s named-column CSV. The source&apos;s file replaces the options and the Target
        Sets; the named-column CSV replaces each part it has a table for. You see what changes
        before anything is committed.
      </p>
      <div className="field-row">
        <div className="field-label">
          <span id={`${layoutId}-label`}>Layout</span>
        </div>
        <div className="field-control">
          <div role="radiogroup" aria-labelledby={`${layoutId}-label`} className="radio-group">
            {(['asShown', ...IMPORT_FILE_FORMATS] as const).map((value) => (
              <span className="radio" key={value}>
                <input
                  type="radio"
                  id={`${layoutId}-${value}`}
                  name={`${layoutId}-layout`}
                  value={value}
                  checked={layout === value}
                  onChange={() => chooseLayout(value)}
                />
                <label htmlFor={`${layoutId}-${value}`}>
                  {value === 'asShown' ? 'As the file shows' : FORMAT_NAMES[value].label}
                </label>
              </span>
            ))}
          </div>
          <p className="field-help">
            As the file shows: a file whose records start with a table name of ours (IpfeOption,
            IpfeListTsa, …) is the named-column CSV; any other is read as the source&apos;s bulk
            file.
          </p>
        </div>
      </div>
      <div className="field-row">
        <div className="field-label">
          <label htmlFor={inputId}>File to import</label>
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
                  previewFile(file.content, { format, createServers }, firstBasedOn ?? undefined);
                }}
              >
                Preview again
              </Button>
            )
          }
        />
      )}
      {shown && (
        <>
          <ImportPreview preview={shown} onCreateServers={takeOffer} busy={preview.isPending} />
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
