import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { Role } from '@/lib/auth';
import type { User } from './get-users';

export const createUser = (data: { name: string; password: string; role: Role }) =>
  api.post<User>('/api/users', data);

export const useCreateUser = () => useMutation({ mutationFn: createUser });
