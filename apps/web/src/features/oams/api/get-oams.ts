import { useQuery } from '@tanstack/react-query';
import type { OamMember } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { LIVE_INTERVAL_MS } from '@/features/ipfe-status/api/get-ipfe';

export type { OamMember };

/** GET /api/oams: the OAMs that share the store, the one answering first (decision 022). */
export const useOams = () =>
  useQuery({
    queryKey: ['oams'],
    queryFn: async ({ signal }) =>
      (await api.get<{ items: OamMember[] }>('/api/oams', signal)).data.items,
    refetchInterval: LIVE_INTERVAL_MS,
  });
