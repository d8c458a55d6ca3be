import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { Role } from '@/lib/auth';

/** A user as GET /api/users shows it (the API keeps this schema in apps/api). */
export interface User {
  name: string;
  role: Role;
  createdAt: string;
  updatedAt: string;
}

export const usersQueryKey = ['users'] as const;

export const getUsers = (signal?: AbortSignal) => api.get<{ items: User[] }>('/api/users', signal);

export const getUsersQueryOptions = () =>
  queryOptions({
    queryKey: usersQueryKey,
    queryFn: async ({ signal }) => (await getUsers(signal)).data.items,
  });

export const useUsers = () => useQuery(getUsersQueryOptions());
