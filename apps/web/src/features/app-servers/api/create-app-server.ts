import { useMutation } from '@tanstack/react-query';
import type { AppServerInput } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import type { AppServerView } from './get-app-servers';

export const createAppServer = (data: AppServerInput) =>
  api.post<AppServerView>('/api/app-servers', data);

export const useCreateAppServer = () => useMutation({ mutationFn: createAppServer });
