import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { LoginForm } from '@/features/auth/components/login-form';
import { useUser } from '@/lib/auth';
import { useEffect } from 'react';

/** Only same-site paths are followed after login. */
const safeNext = (next: string | null) =>
  next && next.startsWith('/') && !next.startsWith('//') ? next : '/target-sets';

export function LoginRoute() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const session = useUser();
  const next = safeNext(params.get('next'));
  useEffect(() => {
    document.title = 'Log in · IPFE OAM';
  }, []);
  if (session.data) return <Navigate to={next} replace />;
  return (
    <div className="login-page">
      <main className="login-box">
        <h1>
          IPFE <span className="brand-sub">OAM</span>
        </h1>
        <p className="login-lead">IP Front End operations, administration and maintenance</p>
        {params.get('next') && (
          <p className="alert alert-info" role="status">
            Log in to continue (your session may have expired).
          </p>
        )}
        <LoginForm onSuccess={() => void navigate(next, { replace: true })} />
      </main>
    </div>
  );
}
