import { queryOptions, useQuery } from '@tanstack/react-query';
import type { User, ListOf } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { User };

export const usersQueryKey = ['users'] as const;

export const getUsers = (signal?: AbortSignal) => api.get<ListOf<User>>('/api/users', signal);

export const getUsersQueryOptions = () =>
  queryOptions({
    queryKey: usersQueryKey,
    queryFn: async ({ signal }) => (await getUsers(signal)).data.items,
  });

export const useUsers = () => useQuery(getUsersQueryOptions());
