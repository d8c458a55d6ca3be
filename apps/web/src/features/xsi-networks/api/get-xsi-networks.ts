import { queryOptions, useQuery } from '@tanstack/react-query';
import type { XsiNetworkView, ListOf } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { XsiNetworkView };

export const xsiNetworksQueryKey = ['xsi-networks'] as const;

export const getXsiNetworks = (signal?: AbortSignal) =>
  api.get<ListOf<XsiNetworkView>>('/api/xsi-networks', signal);

export const getXsiNetworksQueryOptions = () =>
  queryOptions({
    queryKey: xsiNetworksQueryKey,
    queryFn: async ({ signal }) => (await getXsiNetworks(signal)).data.items,
  });

export const useXsiNetworks = () => useQuery(getXsiNetworksQueryOptions());
