import { useQuery } from '@tanstack/react-query';
import type { RevisionLog } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { revisionsQueryKey } from './get-revisions';

/**
 * The running revision as the server has it now, read afresh each time a component asks (nothing
 * kept once it unmounts): the revision log a page shows may predate another operator's commit.
 */
export const useRunningRevision = () =>
  useQuery({
    queryKey: [...revisionsQueryKey, 'running'],
    queryFn: async ({ signal }) =>
      (await api.get<RevisionLog>('/api/revisions?limit=1', signal)).data.items[0]?.number ?? 0,
    staleTime: 0,
    gcTime: 0,
  });
