import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { appServersQueryKey, type AppServerView } from './get-app-servers';

export const getAppServer = (name: string, signal?: AbortSignal) =>
  api.get<AppServerView>(`/api/app-servers/${encodeURIComponent(name)}`, signal);

export const getAppServerQueryOptions = (name: string) =>
  queryOptions({
    queryKey: [...appServersQueryKey, name],
    queryFn: ({ signal }) => getAppServer(name, signal),
  });

export const useAppServer = (name: string) => useQuery(getAppServerQueryOptions(name));
