import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Options } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export const optionsQueryKey = ['options'] as const;

export const getOptions = (signal?: AbortSignal) => api.get<Options>('/api/options', signal);

export const getOptionsQueryOptions = () =>
  queryOptions({ queryKey: optionsQueryKey, queryFn: ({ signal }) => getOptions(signal) });

export const useOptions = () => useQuery(getOptionsQueryOptions());
