import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { Role } from '@/lib/auth';
import { getUserQueryOptions } from './get-user';
import type { User } from './get-users';

export const updateUser = ({
  name,
  data,
  etag,
}: {
  name: string;
  data: { role?: Role; password?: string };
  etag: string | null;
}) => api.put<User>(`/api/users/${encodeURIComponent(name)}`, data, etag);

export function useUpdateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateUser,
    onSuccess: (saved, { name }) =>
      queryClient.setQueryData(getUserQueryOptions(name).queryKey, saved),
  });
}
