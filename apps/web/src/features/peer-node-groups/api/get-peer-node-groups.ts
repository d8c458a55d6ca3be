import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PeerNodeGroupView, ListOf } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { PeerNodeGroupView };

export const peerNodeGroupsQueryKey = ['peer-node-groups'] as const;

export const getPeerNodeGroups = (signal?: AbortSignal) =>
  api.get<ListOf<PeerNodeGroupView>>('/api/peer-node-groups', signal);

export const getPeerNodeGroupsQueryOptions = () =>
  queryOptions({
    queryKey: peerNodeGroupsQueryKey,
    queryFn: async ({ signal }) => (await getPeerNodeGroups(signal)).data.items,
  });

export const usePeerNodeGroups = () => useQuery(getPeerNodeGroupsQueryOptions());
