import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { AuditEntry, ListOf } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { AuditEntry };

export const AUDIT_PAGE_SIZE = 100;

export const auditQueryKey = ['audit'] as const;

/** A page of the log, newest first; `before`: entries older than this id. */
export const getAudit = (before: number | null, signal?: AbortSignal) =>
  api.get<ListOf<AuditEntry>>(
    `/api/audit?limit=${AUDIT_PAGE_SIZE}${before === null ? '' : `&before=${before}`}`,
    signal,
  );

export const getAuditQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: auditQueryKey,
    queryFn: async ({ pageParam, signal }) => (await getAudit(pageParam, signal)).data.items,
    initialPageParam: null as number | null,
    getNextPageParam: (last) =>
      last.length < AUDIT_PAGE_SIZE ? undefined : (last[last.length - 1]?.id ?? undefined),
    staleTime: 0,
  });

/** The audit log, a page at a time ("Older entries" loads the next). */
export const useAudit = () => useInfiniteQuery(getAuditQueryOptions());
