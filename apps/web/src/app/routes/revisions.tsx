import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { ExportLinks } from '@/components/ui/export-links';
import { Loading, Page } from '@/components/ui/page';
import { useRevision } from '@/features/revisions/api/get-revision';
import { useRevisionDiff } from '@/features/revisions/api/get-revision-diff';
import { useRevisions } from '@/features/revisions/api/get-revisions';
import { useRollbackRevision } from '@/features/revisions/api/rollback-revision';
import { RevisionDiff } from '@/features/revisions/components/revision-diff';
import { RevisionDocument } from '@/features/revisions/components/revision-document';
import { RevisionsList } from '@/features/revisions/components/revisions-list';
import { RollbackChanges } from '@/features/revisions/components/rollback-changes';
import { describeError } from '@/lib/api-client';
import { canEdit, useUser } from '@/lib/auth';

export function RevisionsRoute() {
  const revisions = useRevisions();
  const { data: user } = useUser();
  const rollback = useRollbackRevision();
  const [target, setTarget] = useState<number | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const confirm = async () => {
    if (target === null) return;
    try {
      const { data, unchanged } = await rollback.mutateAsync(target);
      setDone(
        unchanged
          ? `Nothing to roll back: revision ${data.number}, the running one, has the content of revision ${target} already.`
          : `Rolled back to revision ${target}: committed as revision ${data.number}.`,
      );
      setTarget(null);
    } catch (error) {
      setFailure(describeError(error));
    }
  };

  return (
    <Page trail={[]} title="Revisions" toolbar={<ExportLinks />}>
      {done && <Alert tone="success" title={done} />}
      {revisions.isError && <Alert tone="error" title={revisions.error.message} />}
      {revisions.data ? (
        <>
          <p className="page-note">
            {revisions.data.total} revision{revisions.data.total === 1 ? '' : 's'}. Every saved
            change is one; a rollback commits an old revision&apos;s content as a new one.
          </p>
          <RevisionsList
            revisions={revisions.data.items}
            onRollback={
              canEdit(user)
                ? (n) => {
                    setDone(null);
                    setFailure(null);
                    setTarget(n);
                  }
                : undefined
            }
          />
        </>
      ) : (
        !revisions.isError && <Loading what="revisions" />
      )}
      <ConfirmDialog
        open={target !== null}
        title={`Roll back to revision ${target ?? ''}?`}
        confirmLabel="Roll back"
        wide
        busy={rollback.isPending}
        onConfirm={() => void confirm()}
        onCancel={() => {
          setTarget(null);
          setFailure(null);
        }}
        error={failure && <>The rollback was refused: {failure}</>}
      >
        <p>
          The configuration of revision {target} becomes the running configuration, as a new
          revision. Nothing is deleted from the history.
        </p>
        {target !== null && <RollbackChanges target={target} />}
      </ConfirmDialog>
    </Page>
  );
}

export function RevisionRoute() {
  const params = useParams();
  const number = Number(params.revision);
  const revision = useRevision(number);
  return (
    <Page
      trail={['Revisions']}
      title={`Revision ${number}`}
      toolbar={
        <div className="toolbar">
          {/* Only a revision that exists can be downloaded or compared. */}
          {revision.data && (
            <>
              <a className="btn btn-secondary" href={`/api/export?revision=${number}`} download>
                Download
              </a>
              <Link
                className="btn btn-secondary"
                to={`/revisions/diff?from=${number - 1}&to=${number}`}
              >
                Changes
              </Link>
            </>
          )}
          <Link className="btn btn-secondary" to="/revisions">
            All revisions
          </Link>
        </div>
      }
    >
      {revision.isError && <Alert tone="error" title={revision.error.message} />}
      {revision.data ? (
        <RevisionDocument document={revision.data} />
      ) : (
        !revision.isError && <Loading what={`revision ${number}`} />
      )}
    </Page>
  );
}

export function RevisionDiffRoute() {
  const [params] = useSearchParams();
  const from = Math.max(0, Number(params.get('from') ?? 0) || 0);
  const to = Math.max(0, Number(params.get('to') ?? 0) || 0);
  const diff = useRevisionDiff(from, to);
  const a = useRevision(from);
  const b = useRevision(to);
  const error = diff.error ?? a.error ?? b.error;
  return (
    <Page
      trail={['Revisions']}
      title={`Compare revision ${from} with ${to}`}
      toolbar={
        <div className="toolbar">
          <Link className="btn btn-secondary" to="/revisions">
            All revisions
          </Link>
        </div>
      }
    >
      {error && <Alert tone="error" title={error.message} />}
      {diff.data && a.data && b.data ? (
        <RevisionDiff diff={diff.data} from={a.data} to={b.data} />
      ) : (
        !error && <Loading what="the comparison" />
      )}
    </Page>
  );
}
