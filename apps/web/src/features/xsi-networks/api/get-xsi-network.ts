import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { xsiNetworksQueryKey, type XsiNetworkView } from './get-xsi-networks';

export const getXsiNetwork = (name: string, signal?: AbortSignal) =>
  api.get<XsiNetworkView>(`/api/xsi-networks/${encodeURIComponent(name)}`, signal);

export const getXsiNetworkQueryOptions = (name: string) =>
  queryOptions({
    queryKey: [...xsiNetworksQueryKey, name],
    queryFn: ({ signal }) => getXsiNetwork(name, signal),
  });

export const useXsiNetwork = (name: string) => useQuery(getXsiNetworkQueryOptions(name));
