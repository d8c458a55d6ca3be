import { queryOptions, useQueries } from '@tanstack/react-query';
import type { AgentStatusView, IpfeSlot } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { LIVE_INTERVAL_MS } from './get-ipfe';

/** GET /api/ipfe/:slot/status: the agent's whole status as the OAM read it last (null: none). */
export const agentStatusQueryKey = (slot: IpfeSlot) => ['ipfe', slot, 'status'] as const;

export const getAgentStatus = (slot: IpfeSlot, signal?: AbortSignal) =>
  api.get<AgentStatusView>(`/api/ipfe/${encodeURIComponent(slot)}/status`, signal);

export const getAgentStatusQueryOptions = (slot: IpfeSlot) =>
  queryOptions({
    queryKey: agentStatusQueryKey(slot),
    queryFn: async ({ signal }) => (await getAgentStatus(slot, signal)).data.status,
    staleTime: 0,
    refetchInterval: LIVE_INTERVAL_MS,
  });

/** The status of each of `slots`, refreshed live; a map from slot to status (null: unknown). */
export function useAgentStatuses(slots: IpfeSlot[]) {
  return useQueries({
    queries: slots.map((slot) => getAgentStatusQueryOptions(slot)),
    combine: (results) => ({
      statuses: new Map(slots.map((slot, i) => [slot, results[i]?.data ?? null] as const)),
      error: results.find((r) => r.isError)?.error ?? null,
      pending: results.some((r) => r.isPending),
    }),
  });
}
