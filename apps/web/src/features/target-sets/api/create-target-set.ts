import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TargetSetInput } from '@ipfe/schema';
import { api, ApiError } from '@/lib/api-client';
import { targetSetsQueryKey, type TargetSetView } from './get-target-sets';

export const createTargetSet = (data: TargetSetInput) =>
  api.post<TargetSetView>('/api/target-sets', data);

export function useCreateTargetSet() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createTargetSet,
    // 409: another client took the number meanwhile. Read the Target Sets again, so that the
    // form's TS Number pull-down no longer offers it.
    onError: (error) => {
      if (error instanceof ApiError && error.status === 409) {
        void queryClient.invalidateQueries({ queryKey: targetSetsQueryKey });
      }
    },
  });
}
