import { useCreatePeerNodeGroup } from '@/features/peer-node-groups/api/create-peer-node-group';
import { useDeletePeerNodeGroup } from '@/features/peer-node-groups/api/delete-peer-node-group';
import { usePeerNodeGroup } from '@/features/peer-node-groups/api/get-peer-node-group';
import { usePeerNodeGroups } from '@/features/peer-node-groups/api/get-peer-node-groups';
import { useUpdatePeerNodeGroup } from '@/features/peer-node-groups/api/update-peer-node-group';
import { PeerNodeGroupForm } from '@/features/peer-node-groups/components/peer-node-group-form';
import { PeerNodeGroupsList } from '@/features/peer-node-groups/components/peer-node-groups-list';
import { collectionRoutes } from './collection';

const routes = collectionRoutes({
  trail: ['Network'],
  path: '/peer-node-groups',
  title: 'Peer Node Groups',
  noun: 'Peer node group',
  nounInSentence: 'peer node group',
  keyOf: (item) => item.name,
  useList: usePeerNodeGroups,
  useOne: usePeerNodeGroup,
  useCreate: useCreatePeerNodeGroup,
  useUpdate: () => {
    const update = useUpdatePeerNodeGroup();
    return { mutateAsync: ({ key, ...change }) => update.mutateAsync({ name: key, ...change }) };
  },
  useDelete: useDeletePeerNodeGroup,
  renderList: ({ items, selected, onSelect }) => (
    <PeerNodeGroupsList groups={items} selected={selected} onSelect={onSelect} />
  ),
  renderForm: ({ entity, ...props }) => <PeerNodeGroupForm group={entity} {...props} />,
});

export const PeerNodeGroupsRoute = routes.ListRoute;
export const PeerNodeGroupInsertRoute = routes.InsertRoute;
export const PeerNodeGroupEditRoute = routes.EditRoute;
