import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TargetSetView, ListOf } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { TargetSetView };

export const targetSetsQueryKey = ['target-sets'] as const;

export const getTargetSets = (signal?: AbortSignal) =>
  api.get<ListOf<TargetSetView>>('/api/target-sets', signal);

export const getTargetSetsQueryOptions = () =>
  queryOptions({
    queryKey: targetSetsQueryKey,
    queryFn: async ({ signal }) => (await getTargetSets(signal)).data.items,
  });

/** `live`: re-read every few seconds, for the agents' live state (owner, active bindings). */
export const useTargetSets = ({ live = false }: { live?: boolean } = {}) =>
  useQuery({ ...getTargetSetsQueryOptions(), refetchInterval: live ? 5_000 : false });
