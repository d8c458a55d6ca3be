import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { getTargetSetQueryOptions } from './get-target-set';

/** A delete needs the item's current ETag: it is read first, then deleted with If-Match. */
export async function deleteTargetSet(
  number: number,
  queryClient: ReturnType<typeof useQueryClient>,
) {
  const current = await queryClient.fetchQuery({
    ...getTargetSetQueryOptions(number),
    staleTime: 0,
  });
  return api.delete(`/api/target-sets/${encodeURIComponent(number)}`, current.etag);
}

export function useDeleteTargetSet() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (number: number) => deleteTargetSet(number, queryClient),
    onSuccess: (_result, number) =>
      queryClient.removeQueries({ queryKey: getTargetSetQueryOptions(number).queryKey }),
  });
}
