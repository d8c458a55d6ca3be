import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { getXsiNetworkQueryOptions } from './get-xsi-network';

/** A delete needs the item's current ETag: it is read first, then deleted with If-Match. */
export async function deleteXsiNetwork(
  name: string,
  queryClient: ReturnType<typeof useQueryClient>,
) {
  const current = await queryClient.fetchQuery({
    ...getXsiNetworkQueryOptions(name),
    staleTime: 0,
  });
  return api.delete(`/api/xsi-networks/${encodeURIComponent(name)}`, current.etag);
}

export function useDeleteXsiNetwork() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => deleteXsiNetwork(name, queryClient),
    onSuccess: (_result, name) =>
      queryClient.removeQueries({ queryKey: getXsiNetworkQueryOptions(name).queryKey }),
  });
}
