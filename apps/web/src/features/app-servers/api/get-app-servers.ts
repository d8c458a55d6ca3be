import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AppServerView, ListOf } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { AppServerView };

export const appServersQueryKey = ['app-servers'] as const;

export const getAppServers = (signal?: AbortSignal) =>
  api.get<ListOf<AppServerView>>('/api/app-servers', signal);

export const getAppServersQueryOptions = () =>
  queryOptions({
    queryKey: appServersQueryKey,
    queryFn: async ({ signal }) => (await getAppServers(signal)).data.items,
  });

export const useAppServers = () => useQuery(getAppServersQueryOptions());
