import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TargetSetInput } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { getTargetSetQueryOptions } from './get-target-set';
import type { TargetSetView } from './get-target-sets';

export const updateTargetSet = ({
  number,
  data,
  etag,
}: {
  number: number;
  data: TargetSetInput;
  etag: string | null;
}) => api.put<TargetSetView>(`/api/target-sets/${encodeURIComponent(number)}`, data, etag);

export function useUpdateTargetSet() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateTargetSet,
    onSuccess: (saved, { number }) =>
      queryClient.setQueryData(getTargetSetQueryOptions(number).queryKey, saved),
  });
}
