import { useMutation } from '@tanstack/react-query';
import type { XsiNetwork } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import type { XsiNetworkView } from './get-xsi-networks';

export const createXsiNetwork = (data: XsiNetwork) =>
  api.post<XsiNetworkView>('/api/xsi-networks', data);

export const useCreateXsiNetwork = () => useMutation({ mutationFn: createXsiNetwork });
