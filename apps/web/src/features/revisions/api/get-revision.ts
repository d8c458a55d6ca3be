import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ConfigDocument } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { revisionsQueryKey } from './get-revisions';

export const getRevision = (revision: number, signal?: AbortSignal) =>
  api.get<ConfigDocument>(`/api/revisions/${revision}`, signal);

export const getRevisionQueryOptions = (revision: number) =>
  queryOptions({
    queryKey: [...revisionsQueryKey, revision],
    queryFn: async ({ signal }) => (await getRevision(revision, signal)).data,
    // A revision never changes once committed.
    staleTime: Infinity,
  });

export const useRevision = (revision: number) => useQuery(getRevisionQueryOptions(revision));
