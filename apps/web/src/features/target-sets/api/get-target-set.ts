import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { targetSetsQueryKey, type TargetSetView } from './get-target-sets';

export const getTargetSet = (number: number, signal?: AbortSignal) =>
  api.get<TargetSetView>(`/api/target-sets/${encodeURIComponent(number)}`, signal);

export const getTargetSetQueryOptions = (number: number) =>
  queryOptions({
    queryKey: [...targetSetsQueryKey, number],
    queryFn: ({ signal }) => getTargetSet(number, signal),
  });

export const useTargetSet = (number: number) => useQuery(getTargetSetQueryOptions(number));
