import { useMutation } from '@tanstack/react-query';
import type { TargetSetInput } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import type { TargetSetView } from './get-target-sets';

export const createTargetSet = (data: TargetSetInput) =>
  api.post<TargetSetView>('/api/target-sets', data);

export const useCreateTargetSet = () => useMutation({ mutationFn: createTargetSet });
