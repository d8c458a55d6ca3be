import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SnmpTrapsInput, SnmpTrapsView } from '@ipfe/schema';
import { api, type Versioned } from '@/lib/api-client';

export type { SnmpTrapsView };

export const snmpTrapsQueryKey = ['options', 'snmp-traps'] as const;
const URL = '/api/options/snmp-traps';

export const getSnmpTrapsQueryOptions = () =>
  queryOptions({
    queryKey: snmpTrapsQueryKey,
    queryFn: ({ signal }) => api.get<SnmpTrapsView>(URL, signal),
  });

export const useSnmpTraps = () => useQuery(getSnmpTrapsQueryOptions());

export function useUpdateSnmpTraps() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ data, etag }: { data: SnmpTrapsInput; etag: string | null }) =>
      api.put<SnmpTrapsView>(URL, data, etag),
    onSuccess: (saved: Versioned<SnmpTrapsView>) =>
      queryClient.setQueryData(snmpTrapsQueryKey, saved),
  });
}
