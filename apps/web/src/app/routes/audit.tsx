import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Loading, Page } from '@/components/ui/page';
import { useAudit } from '@/features/audit/api/get-audit';
import { AuditLog } from '@/features/audit/components/audit-log';

/** Administration › Audit log (admins only). */
export function AuditRoute() {
  const audit = useAudit();
  const entries = audit.data?.pages.flat() ?? [];
  return (
    <Page
      trail={['Administration']}
      title="Audit log"
      toolbar={
        <Button onClick={() => void audit.refetch()} disabled={audit.isFetching}>
          Refresh
        </Button>
      }
    >
      {audit.isError && <Alert tone="error" title={audit.error.message} />}
      {audit.data ? (
        <>
          <p className="page-note">
            Every login, failed login, logout and change, newest first: who, from where, what, and
            the outcome. {entries.length} entries shown.
          </p>
          <AuditLog entries={entries} />
          {audit.hasNextPage && (
            <p>
              <Button
                onClick={() => void audit.fetchNextPage()}
                disabled={audit.isFetchingNextPage}
              >
                {audit.isFetchingNextPage ? 'Loading older entries…' : 'Older entries'}
              </Button>
            </p>
          )}
        </>
      ) : (
        !audit.isError && <Loading what="the audit log" />
      )}
    </Page>
  );
}
