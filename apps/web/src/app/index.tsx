import { BrowserRouter, useRoutes } from 'react-router';
import { AppProvider } from './provider';
import { routes } from './router';

function Pages() {
  return useRoutes(routes);
}

export function App() {
  return (
    <AppProvider>
      <BrowserRouter>
        <Pages />
      </BrowserRouter>
    </AppProvider>
  );
}
