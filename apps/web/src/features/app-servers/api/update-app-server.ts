import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AppServerInput } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { getAppServerQueryOptions } from './get-app-server';
import type { AppServerView } from './get-app-servers';

export const updateAppServer = ({
  name,
  data,
  etag,
}: {
  name: string;
  data: AppServerInput;
  etag: string | null;
}) => api.put<AppServerView>(`/api/app-servers/${encodeURIComponent(name)}`, data, etag);

export function useUpdateAppServer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateAppServer,
    onSuccess: (saved, { name }) =>
      queryClient.setQueryData(getAppServerQueryOptions(name).queryKey, saved),
  });
}
