import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiToken, CreatedApiToken, ListOf } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { ApiToken, CreatedApiToken };

/** Whose tokens: the user's own, or (admins) every user's. */
export type TokenScope = 'own' | 'everyone';

const LIST_URL: Record<TokenScope, string> = {
  own: '/api/users/me/tokens',
  everyone: '/api/tokens',
};

export const apiTokensQueryKey = (scope: TokenScope) => ['api-tokens', scope] as const;

export const getApiTokensQueryOptions = (scope: TokenScope) =>
  queryOptions({
    queryKey: apiTokensQueryKey(scope),
    queryFn: async ({ signal }) =>
      (await api.get<ListOf<ApiToken>>(LIST_URL[scope], signal)).data.items,
  });

export const useApiTokens = (scope: TokenScope, enabled = true) =>
  useQuery({ ...getApiTokensQueryOptions(scope), enabled });

export function useCreateApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.post<CreatedApiToken>('/api/users/me/tokens', { name }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-tokens'] }),
  });
}

/** Revokes a token: one's own, or (admins) anyone's. */
export function useRevokeApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, scope }: { id: number; scope: TokenScope }) =>
      api.delete(`${LIST_URL[scope]}/${id}`, null),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-tokens'] }),
  });
}
