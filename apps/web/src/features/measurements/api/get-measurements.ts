import { queryOptions, useQuery } from '@tanstack/react-query';
import type { MeasurementsView, TargetSetMeasurementsView } from '@ipfe/schema';
import { api } from '@/lib/api-client';

/** GET /api/measurements: per Target Set and server, totals now and rates of the last hour. */
export type { MeasurementsView, TargetSetMeasurementsView };

/** The rates move one step (10 s) at a time: a refresh every 5 s shows each step soon enough. */
export const MEASUREMENTS_INTERVAL_MS = 5_000;

export const measurementsQueryKey = ['measurements'] as const;

export const getMeasurements = (signal?: AbortSignal) =>
  api.get<MeasurementsView>('/api/measurements', signal);

export const getMeasurementsQueryOptions = () =>
  queryOptions({
    queryKey: measurementsQueryKey,
    queryFn: async ({ signal }) => (await getMeasurements(signal)).data,
    staleTime: 0,
    refetchInterval: MEASUREMENTS_INTERVAL_MS,
  });

export const useMeasurements = () => useQuery(getMeasurementsQueryOptions());
