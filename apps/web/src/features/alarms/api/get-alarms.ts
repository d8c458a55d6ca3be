import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** One alarm as the OAM keeps it (raised by an agent, or by the OAM itself: 5101). */
export interface AlarmRecord {
  id: number;
  slot: string;
  code: number;
  name: string;
  severity: string;
  targetSet: number | null;
  server: string | null;
  text: string;
  raisedAt: string;
  clearedAt: string | null;
}

export interface AlarmsView {
  active: AlarmRecord[];
  history: AlarmRecord[];
}

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
