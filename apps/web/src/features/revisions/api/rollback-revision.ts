import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { revisionsQueryKey, type RevisionInfo } from './get-revisions';

/** Commits an old revision's content as a new revision. */
export const rollbackRevision = (revision: number) =>
  api.post<RevisionInfo>(`/api/revisions/${revision}/rollback`);

export function useRollbackRevision() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: rollbackRevision,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: revisionsQueryKey }),
  });
}
