import { ChangeList } from '@/components/ui/change-list';
import { Loading } from '@/components/ui/page';
import { useRevisionDiff } from '../api/get-revision-diff';

/** What rolling back from the running revision to `target` changes, in the import preview's words. */
export function RollbackChanges({ running, target }: { running: number; target: number }) {
  const diff = useRevisionDiff(running, target);
  if (diff.isPending) return <Loading what="the changes" />;
  if (diff.isError)
    return (
      <p className="field-error" role="alert">
        The changes could not be read: {diff.error.message}
      </p>
    );
  return (
    <ChangeList
      changes={diff.data}
      caption={`What the rollback to revision ${target} changes`}
      empty={
        <p>
          No change: revision {target} holds the running configuration (revision {running}).
        </p>
      }
    />
  );
}
