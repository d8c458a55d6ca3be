import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { XsiNetwork } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { getXsiNetworkQueryOptions } from './get-xsi-network';
import type { XsiNetworkView } from './get-xsi-networks';

export const updateXsiNetwork = ({
  name,
  data,
  etag,
}: {
  name: string;
  data: XsiNetwork;
  etag: string | null;
}) => api.put<XsiNetworkView>(`/api/xsi-networks/${encodeURIComponent(name)}`, data, etag);

export function useUpdateXsiNetwork() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateXsiNetwork,
    onSuccess: (saved, { name }) =>
      queryClient.setQueryData(getXsiNetworkQueryOptions(name).queryKey, saved),
  });
}
