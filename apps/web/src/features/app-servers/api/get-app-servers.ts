import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AppServerView } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { AppServerView };

export const appServersQueryKey = ['app-servers'] as const;

export const getAppServers = (signal?: AbortSignal) =>
  api.get<{ items: AppServerView[] }>('/api/app-servers', signal);

export const getAppServersQueryOptions = () =>
  queryOptions({
    queryKey: appServersQueryKey,
    queryFn: async ({ signal }) => (await getAppServers(signal)).data.items,
  });

export const useAppServers = () => useQuery(getAppServersQueryOptions());
