import { MutationCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from './api-client';

/**
 * Every commit may change what other entities show (a Target Set shows its servers' port ranges
 * and its IPFE's standby), and always adds a revision: after any successful change every query is
 * stale. The mutation hooks name their own keys as well, so that reading one shows what it touches.
 */
export function createQueryClient() {
  const client: QueryClient = new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: false,
        retry: (count, error) =>
          !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      },
      mutations: { retry: false },
    },
    mutationCache: new MutationCache({
      onSuccess: () => client.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'session' }),
    }),
  });
  return client;
}
