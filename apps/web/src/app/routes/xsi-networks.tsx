import { useCreateXsiNetwork } from '@/features/xsi-networks/api/create-xsi-network';
import { useDeleteXsiNetwork } from '@/features/xsi-networks/api/delete-xsi-network';
import { useXsiNetwork } from '@/features/xsi-networks/api/get-xsi-network';
import { useXsiNetworks } from '@/features/xsi-networks/api/get-xsi-networks';
import { useUpdateXsiNetwork } from '@/features/xsi-networks/api/update-xsi-network';
import { XsiNetworkForm } from '@/features/xsi-networks/components/xsi-network-form';
import { XsiNetworksList } from '@/features/xsi-networks/components/xsi-networks-list';
import { collectionRoutes } from './collection';

const routes = collectionRoutes({
  trail: ['Network'],
  path: '/xsi-networks',
  title: 'XSI Networks',
  noun: 'XSI network',
  nounInSentence: 'XSI network',
  keyOf: (item) => item.name,
  useList: useXsiNetworks,
  useOne: useXsiNetwork,
  useCreate: useCreateXsiNetwork,
  useUpdate: () => {
    const update = useUpdateXsiNetwork();
    return { mutateAsync: ({ key, ...change }) => update.mutateAsync({ name: key, ...change }) };
  },
  useDelete: useDeleteXsiNetwork,
  renderList: ({ items, selected, onSelect }) => (
    <XsiNetworksList networks={items} selected={selected} onSelect={onSelect} />
  ),
  renderForm: ({ entity, ...props }) => <XsiNetworkForm network={entity} {...props} />,
});

export const XsiNetworksRoute = routes.ListRoute;
export const XsiNetworkInsertRoute = routes.InsertRoute;
export const XsiNetworkEditRoute = routes.EditRoute;
