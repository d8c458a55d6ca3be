import { useCreateAppServer } from '@/features/app-servers/api/create-app-server';
import { useDeleteAppServer } from '@/features/app-servers/api/delete-app-server';
import { useAppServer } from '@/features/app-servers/api/get-app-server';
import { useAppServers } from '@/features/app-servers/api/get-app-servers';
import { useUpdateAppServer } from '@/features/app-servers/api/update-app-server';
import { AppServerForm } from '@/features/app-servers/components/app-server-form';
import { AppServersList } from '@/features/app-servers/components/app-servers-list';
import { collectionRoutes } from './collection';

const routes = collectionRoutes({
  trail: ['Network'],
  path: '/app-servers',
  title: 'Application Servers',
  noun: 'Application server',
  nounInSentence: 'application server',
  keyOf: (item) => item.name,
  useList: useAppServers,
  useOne: useAppServer,
  useCreate: useCreateAppServer,
  useUpdate: () => {
    const update = useUpdateAppServer();
    return { mutateAsync: ({ key, ...change }) => update.mutateAsync({ name: key, ...change }) };
  },
  useDelete: useDeleteAppServer,
  renderList: ({ items, selected, onSelect }) => (
    <AppServersList servers={items} selected={selected} onSelect={onSelect} />
  ),
  renderForm: ({ entity, ...props }) => <AppServerForm server={entity} {...props} />,
});

export const AppServersRoute = routes.ListRoute;
export const AppServerInsertRoute = routes.InsertRoute;
export const AppServerEditRoute = routes.EditRoute;
