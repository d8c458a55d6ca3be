import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import {
  createMemoryRouter,
  MemoryRouter,
  RouterProvider,
  useLocation,
  useNavigate,
  useRoutes,
  type Location,
} from 'react-router';
import { AppProvider } from '@/app/provider';
import { routes } from '@/app/router';
import { createQueryClient } from '@/lib/query-client';

/** A component inside a router (for its links) and a query client of its own. */
export function renderWithRouter(ui: ReactElement) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter([{ path: '*', element: ui }], { initialEntries: ['/'] });
  const user = userEvent.setup();
  const result = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...result, user, router };
}

/** Where the application is, as a test reads it (`router.state.location`). */
interface ShownLocation {
  state: { location: Location };
  /** Goes to `to` as a link would. */
  navigate: (to: string) => Promise<void>;
}

function Pages({ shown }: { shown: ShownLocation }) {
  shown.state.location = useLocation();
  const navigate = useNavigate();
  shown.navigate = (to) => act(async () => void (await navigate(to)));
  return useRoutes(routes);
}

/**
 * The whole application at `path`, against whatever `fetch` the test installed, in the router
 * the GUI runs in (a declarative one, as `App` uses).
 */
export function renderApp(path: string) {
  const router: ShownLocation = {
    state: { location: null as unknown as Location },
    navigate: () => Promise.reject(new Error('the application has not rendered yet')),
  };
  const queryClient = createQueryClient();
  const user = userEvent.setup();
  const result = render(
    <AppProvider queryClient={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        <Pages shown={router} />
      </MemoryRouter>
    </AppProvider>,
  );
  return { ...result, user, router, queryClient };
}
