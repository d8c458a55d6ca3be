import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { peerNodeGroupsQueryKey, type PeerNodeGroupView } from './get-peer-node-groups';

export const getPeerNodeGroup = (name: string, signal?: AbortSignal) =>
  api.get<PeerNodeGroupView>(`/api/peer-node-groups/${encodeURIComponent(name)}`, signal);

export const getPeerNodeGroupQueryOptions = (name: string) =>
  queryOptions({
    queryKey: [...peerNodeGroupsQueryKey, name],
    queryFn: ({ signal }) => getPeerNodeGroup(name, signal),
  });

export const usePeerNodeGroup = (name: string) => useQuery(getPeerNodeGroupQueryOptions(name));
