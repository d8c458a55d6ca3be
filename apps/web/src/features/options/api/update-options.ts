import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Options, OptionsInput } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { optionsQueryKey } from './get-options';

export const updateOptions = ({ data, etag }: { data: OptionsInput; etag: string | null }) =>
  api.put<Options>('/api/options', data, etag);

export function useUpdateOptions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateOptions,
    onSuccess: (saved) => queryClient.setQueryData(optionsQueryKey, saved),
  });
}
