import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { getUserQueryOptions } from './get-user';

export async function deleteUser(name: string, queryClient: ReturnType<typeof useQueryClient>) {
  const current = await queryClient.fetchQuery({ ...getUserQueryOptions(name), staleTime: 0 });
  return api.delete(`/api/users/${encodeURIComponent(name)}`, current.etag);
}

export function useDeleteUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => deleteUser(name, queryClient),
    onSuccess: (_r, name) =>
      queryClient.removeQueries({ queryKey: getUserQueryOptions(name).queryKey }),
  });
}
