import { Link } from 'react-router';
import { Page } from '@/components/ui/page';
import { useUser } from '@/lib/auth';

export function NotPermitted() {
  const { data: user } = useUser();
  return (
    <Page trail={[]} title="Not permitted">
      <div className="alert alert-error" role="alert">
        <div className="alert-text">
          <strong>Not permitted.</strong>
          <div>
            Your role ({user?.role ?? 'none'}) may view the configuration but not change it. Ask an
            administrator for the operator role to insert, edit or delete.
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
