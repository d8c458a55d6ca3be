import { Navigate, Outlet, type RouteObject } from 'react-router';
import { AppLayout } from '@/components/layouts/app-layout';
import { Authorization, RequireAuth } from '@/lib/auth';
import type { ReactNode } from 'react';
import { PushProgress } from '@/features/ipfe-status/components/push-progress';
import { SyncBadge } from '@/features/ipfe-status/components/sync-badge';
import { AlarmsRoute } from './routes/alarms';
import { AuditRoute } from './routes/audit';
import { StatusRoute } from './routes/status';
import { AppServerEditRoute, AppServerInsertRoute, AppServersRoute } from './routes/app-servers';
import { LoginRoute } from './routes/login';
import { OptionsRoute } from './routes/options';
import {
  PeerNodeGroupEditRoute,
  PeerNodeGroupInsertRoute,
  PeerNodeGroupsRoute,
} from './routes/peer-node-groups';
import { RevisionDiffRoute, RevisionRoute, RevisionsRoute } from './routes/revisions';
import { NotFound, NotPermitted } from './routes/status-pages';
import { TargetSetEditRoute, TargetSetInsertRoute, TargetSetsRoute } from './routes/target-sets';
import { UserEditRoute, UserInsertRoute, UsersRoute } from './routes/users';
import {
  XsiNetworkEditRoute,
  XsiNetworkInsertRoute,
  XsiNetworksRoute,
} from './routes/xsi-networks';

/** User management: admins only. */
const admin = (page: ReactNode) => (
  <Authorization allowed={['admin']} fallback={<NotPermitted needs="the admin role" />}>
    {page}
  </Authorization>
);

/** Pages that change the configuration: operators and admins only. */
const editor = (page: ReactNode) => (
  <Authorization fallback={<NotPermitted />}>{page}</Authorization>
);

function Shell() {
  return (
    <RequireAuth>
      <AppLayout status={<SyncBadge />} notices={<PushProgress />}>
        <Outlet />
      </AppLayout>
    </RequireAuth>
  );
}

export const routes: RouteObject[] = [
  { path: '/login', element: <LoginRoute /> },
  {
    path: '/',
    element: <Shell />,
    children: [
      { index: true, element: <Navigate to="/target-sets" replace /> },
      { path: 'options', element: <OptionsRoute /> },
      { path: 'target-sets', element: <TargetSetsRoute /> },
      { path: 'target-sets/insert', element: editor(<TargetSetInsertRoute />) },
      { path: 'target-sets/:key/edit', element: editor(<TargetSetEditRoute />) },
      { path: 'xsi-networks', element: <XsiNetworksRoute /> },
      { path: 'xsi-networks/insert', element: editor(<XsiNetworkInsertRoute />) },
      { path: 'xsi-networks/:key/edit', element: editor(<XsiNetworkEditRoute />) },
      { path: 'app-servers', element: <AppServersRoute /> },
      { path: 'app-servers/insert', element: editor(<AppServerInsertRoute />) },
      { path: 'app-servers/:key/edit', element: editor(<AppServerEditRoute />) },
      { path: 'peer-node-groups', element: <PeerNodeGroupsRoute /> },
      { path: 'peer-node-groups/insert', element: editor(<PeerNodeGroupInsertRoute />) },
      { path: 'peer-node-groups/:key/edit', element: editor(<PeerNodeGroupEditRoute />) },
      { path: 'status', element: <StatusRoute /> },
      { path: 'alarms', element: <AlarmsRoute /> },
      { path: 'revisions', element: <RevisionsRoute /> },
      { path: 'revisions/diff', element: <RevisionDiffRoute /> },
      { path: 'revisions/:revision', element: <RevisionRoute /> },
      { path: 'users', element: admin(<UsersRoute />) },
      { path: 'users/insert', element: admin(<UserInsertRoute />) },
      { path: 'users/:name/edit', element: admin(<UserEditRoute />) },
      { path: 'audit', element: admin(<AuditRoute />) },
      { path: '*', element: <NotFound /> },
    ],
  },
];
