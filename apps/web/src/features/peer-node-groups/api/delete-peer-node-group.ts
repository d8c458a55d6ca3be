import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { getPeerNodeGroupQueryOptions } from './get-peer-node-group';

/** A delete needs the item's current ETag: it is read first, then deleted with If-Match. */
export async function deletePeerNodeGroup(
  name: string,
  queryClient: ReturnType<typeof useQueryClient>,
) {
  const current = await queryClient.fetchQuery({
    ...getPeerNodeGroupQueryOptions(name),
    staleTime: 0,
  });
  return api.delete(`/api/peer-node-groups/${encodeURIComponent(name)}`, current.etag);
}

export function useDeletePeerNodeGroup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => deletePeerNodeGroup(name, queryClient),
    onSuccess: (_result, name) =>
      queryClient.removeQueries({ queryKey: getPeerNodeGroupQueryOptions(name).queryKey }),
  });
}
