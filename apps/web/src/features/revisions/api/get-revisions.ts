import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export interface RevisionInfo {
  number: number;
  author: string;
  createdAt: string;
  summary: string;
  sha256: string;
}

export const revisionsQueryKey = ['revisions'] as const;

export const getRevisions = (signal?: AbortSignal) =>
  api.get<{ items: RevisionInfo[]; total: number }>('/api/revisions?limit=1000', signal);

export const getRevisionsQueryOptions = () =>
  queryOptions({
    queryKey: revisionsQueryKey,
    queryFn: async ({ signal }) => (await getRevisions(signal)).data,
  });

export const useRevisions = () => useQuery(getRevisionsQueryOptions());
