import { queryOptions, useQuery } from '@tanstack/react-query';
import type { DerivedTargetSet } from '@ipfe/schema';
import { api, type FieldIssue } from '@/lib/api-client';

export type TargetSetView = DerivedTargetSet & { warnings: FieldIssue[] };

export const targetSetsQueryKey = ['target-sets'] as const;

export const getTargetSets = (signal?: AbortSignal) =>
  api.get<{ items: TargetSetView[] }>('/api/target-sets', signal);

export const getTargetSetsQueryOptions = () =>
  queryOptions({
    queryKey: targetSetsQueryKey,
    queryFn: async ({ signal }) => (await getTargetSets(signal)).data.items,
  });

export const useTargetSets = () => useQuery(getTargetSetsQueryOptions());
