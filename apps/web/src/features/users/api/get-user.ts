import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { usersQueryKey, type User } from './get-users';

export const getUser = (name: string, signal?: AbortSignal) =>
  api.get<User>(`/api/users/${encodeURIComponent(name)}`, signal);

export const getUserQueryOptions = (name: string) =>
  queryOptions({
    queryKey: [...usersQueryKey, name],
    queryFn: ({ signal }) => getUser(name, signal),
  });

export const useUserAccount = (name: string) => useQuery(getUserQueryOptions(name));
