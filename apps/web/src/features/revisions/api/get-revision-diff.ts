import { queryOptions, useQuery } from '@tanstack/react-query';
import type { RevisionDiff } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { revisionsQueryKey } from './get-revisions';

export type { RevisionDiff };

export const getRevisionDiff = (from: number, to: number, signal?: AbortSignal) =>
  api.get<RevisionDiff>(`/api/revisions/${to}/diff?against=${from}`, signal);

export const getRevisionDiffQueryOptions = (from: number, to: number) =>
  queryOptions({
    queryKey: [...revisionsQueryKey, to, 'diff', from],
    queryFn: async ({ signal }) => (await getRevisionDiff(from, to, signal)).data,
    staleTime: Infinity,
  });

export const useRevisionDiff = (from: number, to: number) =>
  useQuery(getRevisionDiffQueryOptions(from, to));
