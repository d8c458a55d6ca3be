import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PeerNodeGroup } from '@ipfe/schema';
import { api, type FieldIssue } from '@/lib/api-client';

export type PeerNodeGroupView = PeerNodeGroup & { warnings: FieldIssue[] };

export const peerNodeGroupsQueryKey = ['peer-node-groups'] as const;

export const getPeerNodeGroups = (signal?: AbortSignal) =>
  api.get<{ items: PeerNodeGroupView[] }>('/api/peer-node-groups', signal);

export const getPeerNodeGroupsQueryOptions = () =>
  queryOptions({
    queryKey: peerNodeGroupsQueryKey,
    queryFn: async ({ signal }) => (await getPeerNodeGroups(signal)).data.items,
  });

export const usePeerNodeGroups = () => useQuery(getPeerNodeGroupsQueryOptions());
