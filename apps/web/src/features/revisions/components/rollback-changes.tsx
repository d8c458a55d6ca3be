import { ChangeList } from '@/components/ui/change-list';
import { Loading } from '@/components/ui/page';
import { useRevisionDiff } from '../api/get-revision-diff';
import { useRunningRevision } from '../api/get-running-revision';

const Unreadable = ({ message }: { message: string }) => (
  <p className="field-error" role="alert">
    The changes could not be read: {message}
  </p>
);

/**
 * What rolling back to `target` changes, in the import preview's words: from the revision running
 * now (read afresh: the log on the page may be older) to `target`.
 */
export function RollbackChanges({ target }: { target: number }) {
  const running = useRunningRevision();
  if (running.isPending) return <Loading what="the changes" />;
  if (running.isError) return <Unreadable message={running.error.message} />;
  return <ChangesFrom running={running.data} target={target} />;
}

function ChangesFrom({ running, target }: { running: number; target: number }) {
  const diff = useRevisionDiff(running, target);
  if (diff.isPending) return <Loading what="the changes" />;
  if (diff.isError) return <Unreadable message={diff.error.message} />;
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
