import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { matchRoutes, Navigate, Outlet, useLocation, type RouteObject } from 'react-router';
import { AppLayout } from '@/components/layouts/app-layout';
import { Loading } from '@/components/ui/page';
import { Authorization, RequireAuth } from '@/lib/auth';
import { PushProgress } from '@/features/ipfe-status/components/push-progress';
import { SyncBadge } from '@/features/ipfe-status/components/sync-badge';
import { AlarmBadge } from '@/features/alarms/components/alarm-badge';
import { LoginRoute } from './routes/login';
import { NotFound, NotPermitted } from './routes/status-pages';
import { TargetSetEditRoute, TargetSetInsertRoute, TargetSetsRoute } from './routes/target-sets';

/**
 * A page fetched when first opened: the first pages (the login and the Target Sets View) are in
 * the entry chunk, the others in routes/other-pages' chunk.
 */
function page<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): ReactNode {
  const Page = lazy(() => load().then((module) => ({ default: pick(module) })));
  return <Page />;
}

const otherPages = () => import('./routes/other-pages');

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

/** The route shown, named by its path pattern (sibling patterns differ). */
function useShownRoute(): string {
  const matches = matchRoutes(routes, useLocation()) ?? [];
  return matches.map((m) => m.route.path ?? '(index)').join('/');
}

function Shell() {
  return (
    <RequireAuth>
      <AppLayout
        status={
          <>
            <AlarmBadge />
            <SyncBadge />
          </>
        }
        notices={<PushProgress />}
      >
        {/* One boundary per route: a page's first load shows the status, not the page before. */}
        <Suspense key={useShownRoute()} fallback={<Loading what="the page" />}>
          <Outlet />
        </Suspense>
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
      { path: 'options', element: page(otherPages, (m) => m.OptionsRoute) },
      { path: 'target-sets', element: <TargetSetsRoute /> },
      { path: 'target-sets/insert', element: editor(<TargetSetInsertRoute />) },
      { path: 'target-sets/:key/edit', element: editor(<TargetSetEditRoute />) },
      { path: 'xsi-networks', element: page(otherPages, (m) => m.XsiNetworksRoute) },
      {
        path: 'xsi-networks/insert',
        element: editor(page(otherPages, (m) => m.XsiNetworkInsertRoute)),
      },
      {
        path: 'xsi-networks/:key/edit',
        element: editor(page(otherPages, (m) => m.XsiNetworkEditRoute)),
      },
      { path: 'app-servers', element: page(otherPages, (m) => m.AppServersRoute) },
      {
        path: 'app-servers/insert',
        element: editor(page(otherPages, (m) => m.AppServerInsertRoute)),
      },
      {
        path: 'app-servers/:key/edit',
        element: editor(page(otherPages, (m) => m.AppServerEditRoute)),
      },
      {
        path: 'peer-node-groups',
        element: page(otherPages, (m) => m.PeerNodeGroupsRoute),
      },
      {
        path: 'peer-node-groups/insert',
        element: editor(page(otherPages, (m) => m.PeerNodeGroupInsertRoute)),
      },
      {
        path: 'peer-node-groups/:key/edit',
        element: editor(page(otherPages, (m) => m.PeerNodeGroupEditRoute)),
      },
      { path: 'status', element: page(otherPages, (m) => m.StatusRoute) },
      { path: 'alarms', element: page(otherPages, (m) => m.AlarmsRoute) },
      { path: 'measurements', element: page(otherPages, (m) => m.MeasurementsRoute) },
      { path: 'revisions', element: page(otherPages, (m) => m.RevisionsRoute) },
      { path: 'import', element: editor(page(otherPages, (m) => m.ImportRoute)) },
      { path: 'revisions/diff', element: page(otherPages, (m) => m.RevisionDiffRoute) },
      { path: 'revisions/:revision', element: page(otherPages, (m) => m.RevisionRoute) },
      { path: 'users', element: admin(page(otherPages, (m) => m.UsersRoute)) },
      { path: 'users/insert', element: admin(page(otherPages, (m) => m.UserInsertRoute)) },
      { path: 'users/:name/edit', element: admin(page(otherPages, (m) => m.UserEditRoute)) },
      { path: 'audit', element: admin(page(otherPages, (m) => m.AuditRoute)) },
      { path: 'tokens', element: page(otherPages, (m) => m.ApiTokensRoute) },
      { path: '*', element: <NotFound /> },
    ],
  },
];
