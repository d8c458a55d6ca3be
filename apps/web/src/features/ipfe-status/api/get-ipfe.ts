import { queryOptions, useQuery } from '@tanstack/react-query';
import type { IpfeSlotView, IpfeView, SlotAlarm, SyncState } from '@ipfe/schema';
import { api } from '@/lib/api-client';

/** GET /api/ipfe: per IPFE slot, the push state of the configuration and what its agent reported last. */
export type { IpfeSlotView, IpfeView, SlotAlarm, SyncState };

/** Live status refreshes at least this often (the API polls the agents every second). */
export const LIVE_INTERVAL_MS = 2_000;

export const ipfeQueryKey = ['ipfe'] as const;

export const getIpfe = (signal?: AbortSignal) => api.get<IpfeView>('/api/ipfe', signal);

export const getIpfeQueryOptions = () =>
  queryOptions({
    queryKey: ipfeQueryKey,
    queryFn: async ({ signal }) => (await getIpfe(signal)).data,
    staleTime: 0,
    // Polling pauses while the tab is hidden (TanStack's default): a forgotten background tab
    // does not keep its session alive, and the badge catches up when the tab shows again.
    refetchInterval: LIVE_INTERVAL_MS,
  });

/** `interval`: poll faster while a push is being followed. */
export const useIpfe = ({ interval = LIVE_INTERVAL_MS }: { interval?: number } = {}) =>
  useQuery({ ...getIpfeQueryOptions(), refetchInterval: interval });
