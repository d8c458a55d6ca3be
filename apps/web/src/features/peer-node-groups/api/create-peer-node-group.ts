import { useMutation } from '@tanstack/react-query';
import type { PeerNodeGroup } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import type { PeerNodeGroupView } from './get-peer-node-groups';

export const createPeerNodeGroup = (data: PeerNodeGroup) =>
  api.post<PeerNodeGroupView>('/api/peer-node-groups', data);

export const useCreatePeerNodeGroup = () => useMutation({ mutationFn: createPeerNodeGroup });
