import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AgentStatus, DerivedTargetSet, IpfeSlot } from '@ipfe/schema';
import { api, type FieldIssue } from '@/lib/api-client';

export type TargetSetView = DerivedTargetSet & {
  warnings: FieldIssue[];
  /** The IPFE serving the primary TSA now, as the agents report it; null: none reports it. */
  owner?: IpfeSlot | null;
  /** Servers able to take new connections, out of all listed, from the serving agent. */
  activeBindings?: { available: number; total: number } | null;
  /** Its protocols the serving IPFE does not forward (its data path cannot); null: none reports. */
  notForwarded?: AgentStatus['targetSets'][number]['notForwarded'] | null;
};

export const targetSetsQueryKey = ['target-sets'] as const;

export const getTargetSets = (signal?: AbortSignal) =>
  api.get<{ items: TargetSetView[] }>('/api/target-sets', signal);

export const getTargetSetsQueryOptions = () =>
  queryOptions({
    queryKey: targetSetsQueryKey,
    queryFn: async ({ signal }) => (await getTargetSets(signal)).data.items,
  });

/** `live`: re-read every few seconds, for the agents' live state (owner, active bindings). */
export const useTargetSets = ({ live = false }: { live?: boolean } = {}) =>
  useQuery({ ...getTargetSetsQueryOptions(), refetchInterval: live ? 5_000 : false });
