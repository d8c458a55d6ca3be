import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { Role, SessionAnswer, SessionUser, SessionView } from '@ipfe/schema';
import { Navigate, useLocation } from 'react-router';
import { api, ApiError, setCsrfToken } from './api-client';
import { removeDrafts } from './drafts';

export type { Role, SessionUser };

export const sessionQueryKey = ['session'] as const;

/** Set by Log out: the login page then starts afresh instead of offering to come back. */
let loggedOut = false;

async function getSession(): Promise<SessionUser | null> {
  try {
    // Nobody logged in: 200 with user null (not a 401, which the browser would log as a failure).
    const { data } = await api.get<SessionAnswer>('/api/session');
    if (!data.user) {
      setCsrfToken(null);
      return null;
    }
    setCsrfToken(data.csrfToken);
    return data.user;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw err;
  }
}

export const getSessionQueryOptions = () =>
  queryOptions({ queryKey: sessionQueryKey, queryFn: getSession, staleTime: Infinity });

export const useUser = () => useQuery(getSessionQueryOptions());

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (credentials: { username: string; password: string }) => {
      const { data } = await api.post<SessionView>('/api/session', credentials);
      setCsrfToken(data.csrfToken);
      loggedOut = false;
      return data.user;
    },
    onSuccess: (user) => {
      // Typing kept from an ended session is for the one who typed it.
      removeDrafts({ user: user.name });
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
      queryClient.setQueryData(sessionQueryKey, user);
    },
  });
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete('/api/session', null),
    // Live pages poll: a poll answered 401 while the session is being closed must not read as
    // an expired session (which would offer to come back to this page after login).
    // Logging out on purpose leaves no typing behind in the tab.
    onMutate: () => {
      loggedOut = true;
      removeDrafts();
    },
    onSettled: () => {
      loggedOut = true;
      removeDrafts();
      setCsrfToken(null);
      queryClient.setQueryData(sessionQueryKey, null);
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    },
  });
}

/** What each role may do (the API enforces the same; the GUI only hides what would be refused). */
export const canEdit = (user: SessionUser | null | undefined) =>
  user?.role === 'admin' || user?.role === 'operator';

/** The current location as a `next` parameter, so that login brings the user back. */
export function loginPath(pathname: string, search: string) {
  const next = `${pathname}${search}`;
  return next === '/' || next.startsWith('/login')
    ? '/login'
    : `/login?next=${encodeURIComponent(next)}`;
}

/** Renders its children only for a logged-in user; anyone else goes to the login page. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const session = useUser();
  const location = useLocation();
  if (session.isPending) return <p className="loading">Loading…</p>;
  if (session.isError) {
    return (
      <p role="alert" className="alert alert-error">
        {session.error.message}
      </p>
    );
  }
  if (!session.data) {
    return (
      <Navigate to={loggedOut ? '/login' : loginPath(location.pathname, location.search)} replace />
    );
  }
  return <>{children}</>;
}

/** Renders its children only for roles that may change the configuration; others get `fallback`. */
export function Authorization({
  allowed = ['admin', 'operator'],
  fallback = null,
  children,
}: {
  allowed?: Role[];
  fallback?: ReactNode;
  children: ReactNode;
}) {
  const { data: user } = useUser();
  if (!user || !allowed.includes(user.role)) return <>{fallback}</>;
  return <>{children}</>;
}
