import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PeerNodeGroup } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { getPeerNodeGroupQueryOptions } from './get-peer-node-group';
import type { PeerNodeGroupView } from './get-peer-node-groups';

export const updatePeerNodeGroup = ({
  name,
  data,
  etag,
}: {
  name: string;
  data: PeerNodeGroup;
  etag: string | null;
}) => api.put<PeerNodeGroupView>(`/api/peer-node-groups/${encodeURIComponent(name)}`, data, etag);

export function useUpdatePeerNodeGroup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updatePeerNodeGroup,
    onSuccess: (saved, { name }) =>
      queryClient.setQueryData(getPeerNodeGroupQueryOptions(name).queryKey, saved),
  });
}
