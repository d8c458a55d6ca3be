import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { getAppServerQueryOptions } from './get-app-server';

/** A delete needs the item's current ETag: it is read first, then deleted with If-Match. */
export async function deleteAppServer(
  name: string,
  queryClient: ReturnType<typeof useQueryClient>,
) {
  const current = await queryClient.fetchQuery({ ...getAppServerQueryOptions(name), staleTime: 0 });
  return api.delete(`/api/app-servers/${encodeURIComponent(name)}`, current.etag);
}

export function useDeleteAppServer() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => deleteAppServer(name, queryClient),
    onSuccess: (_result, name) =>
      queryClient.removeQueries({ queryKey: getAppServerQueryOptions(name).queryKey }),
  });
}
