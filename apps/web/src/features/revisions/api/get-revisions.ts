import { queryOptions, useQuery } from '@tanstack/react-query';
import type { RevisionInfo, RevisionLog } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { RevisionInfo };

export const revisionsQueryKey = ['revisions'] as const;

export const getRevisions = (signal?: AbortSignal) =>
  api.get<RevisionLog>('/api/revisions?limit=1000', signal);

export const getRevisionsQueryOptions = () =>
  queryOptions({
    queryKey: revisionsQueryKey,
    queryFn: async ({ signal }) => (await getRevisions(signal)).data,
  });

export const useRevisions = () => useQuery(getRevisionsQueryOptions());
