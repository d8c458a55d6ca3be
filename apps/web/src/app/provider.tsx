import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { setUnauthenticatedHandler } from '@/lib/api-client';
import { sessionQueryKey } from '@/lib/auth';
import { createQueryClient } from '@/lib/query-client';

/**
 * Queries, and what happens when the session expires: the API answers 401, the session is
 * forgotten, and the page's guard sends the user to the login page (which brings them back).
 */
export function AppProvider({
  children,
  queryClient: given,
}: {
  children: ReactNode;
  queryClient?: QueryClient;
}) {
  const [queryClient] = useState(() => given ?? createQueryClient());
  useEffect(() => {
    setUnauthenticatedHandler(() => queryClient.setQueryData(sessionQueryKey, null));
    return () => setUnauthenticatedHandler(null);
  }, [queryClient]);
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
