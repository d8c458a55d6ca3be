import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AlarmRecord, AlarmsView } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { AlarmRecord, AlarmsView };

export const ALARM_HISTORY_LIMIT = 500;

export const alarmsQueryKey = ['alarms'] as const;

export const getAlarms = (signal?: AbortSignal) =>
  api.get<AlarmsView>(`/api/alarms?limit=${ALARM_HISTORY_LIMIT}`, signal);

export const getAlarmsQueryOptions = () =>
  queryOptions({
    queryKey: alarmsQueryKey,
    queryFn: async ({ signal }) => (await getAlarms(signal)).data,
    staleTime: 0,
    refetchInterval: 2_000,
  });

export const useAlarms = () => useQuery(getAlarmsQueryOptions());

/** The active alarms only (the header's badge, on every page): the history is left at one entry. */
export const useActiveAlarms = () =>
  useQuery({
    queryKey: [...alarmsQueryKey, 'active'],
    queryFn: async ({ signal }) => (await api.get<AlarmsView>('/api/alarms?limit=1', signal)).data,
    staleTime: 0,
    refetchInterval: 2_000,
  });
