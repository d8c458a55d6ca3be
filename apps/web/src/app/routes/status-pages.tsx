import { Link } from 'react-router';
import { Page } from '@/components/ui/page';
import { useUser } from '@/lib/auth';

export function NotPermitted({ needs = 'the operator or admin role' }: { needs?: string }) {
  const { data: user } = useUser();
  return (
    <Page trail={[]} title="Not permitted">
      <div className="alert alert-error" role="alert">
        <div className="alert-text">
          <strong>Not permitted.</strong>
          <div>
            This page needs {needs}; you are logged in as {user?.name ?? 'nobody'} with the role{' '}
            {user?.role ?? 'none'}. Viewers see the configuration but do not change it; ask an
            administrator if you need more.
          </div>
        </div>
      </div>
      <p>
        <Link to="/target-sets">Back to Target Sets [View]</Link>
      </p>
    </Page>
  );
}

export function NotFound() {
  return (
    <Page trail={[]} title="Page not found">
      <p>There is no page at this address.</p>
      <p>
        <Link to="/target-sets">Go to Target Sets [View]</Link>
      </p>
    </Page>
  );
}
