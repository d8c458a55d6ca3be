import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

describe('the application shell', () => {
  it('shows the user and role in the header, and a menu tree without dead links', async () => {
    installFakeApi({ user: { name: 'olga', role: 'operator' } });
    renderApp('/target-sets');
    const header = await screen.findByRole('banner');
    expect(within(header).getByText('olga')).toBeInTheDocument();
    expect(within(header).getByLabelText('role operator')).toBeInTheDocument();
    const menu = screen.getByRole('navigation', { name: 'Main menu' });
    const links = within(menu).getAllByRole('link');
    expect(links.map((l) => l.textContent)).toEqual([
      'Options',
      'Target Sets',
      'Status & Manage',
      'Alarms',
      'Measurements',
      'XSI Networks',
      'Application Servers',
      'Peer Node Groups',
      'Revisions',
      'Import',
      'API tokens',
    ]);
    expect(within(menu).getByRole('link', { name: 'Status & Manage' })).toHaveAttribute(
      'href',
      '/status',
    );
    expect(within(menu).getByRole('link', { name: 'Alarms' })).toHaveAttribute('href', '/alarms');
    expect(within(menu).getByText('Target Sets')).toHaveAttribute('aria-current', 'page');
  });

  it('shows Administration › Users and Audit log to admins only', async () => {
    installFakeApi({ user: { name: 'ada', role: 'admin' } });
    renderApp('/target-sets');
    const menu = await screen.findByRole('navigation', { name: 'Main menu' });
    expect(within(menu).getByRole('link', { name: 'Users' })).toHaveAttribute('href', '/users');
    expect(within(menu).getByRole('link', { name: 'Audit log' })).toHaveAttribute('href', '/audit');
  });

  it('shows an operator who types the Users URL a not-permitted page', async () => {
    installFakeApi({ user: { name: 'olga', role: 'operator' } });
    renderApp('/users');
    expect(await screen.findByRole('heading', { name: 'Not permitted' })).toBeInTheDocument();
  });

  it('sends a logged-out visitor to the login page, and back where they wanted to go', async () => {
    installFakeApi({ user: null });
    const { user, router } = renderApp('/xsi-networks');
    await user.type(await screen.findByLabelText('User name'), 'olga');
    await user.type(screen.getByLabelText('Password'), 'secret123');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('heading', { name: 'XSI Networks' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/xsi-networks');
  });

  it('says so when the password is wrong', async () => {
    installFakeApi({ user: null });
    const { user } = renderApp('/login');
    await user.type(await screen.findByLabelText('User name'), 'olga');
    await user.type(screen.getByLabelText('Password'), 'nope');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong user name or password');
  });

  it('sends the user to login when the session expires, and back to the same page after', async () => {
    const api = installFakeApi({ user: { name: 'olga', role: 'operator' } });
    const { user, router } = renderApp('/target-sets');
    await screen.findByRole('heading', { name: 'Target Sets [View]' });
    api.expireSession();
    await user.click(screen.getByRole('link', { name: 'Peer Node Groups' }));
    expect(await screen.findByText(/your session may have expired/)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toBe('?next=%2Fpeer-node-groups');
    await user.type(screen.getByLabelText('User name'), 'olga');
    await user.type(screen.getByLabelText('Password'), 'secret123');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('heading', { name: 'Peer Node Groups' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/peer-node-groups');
  });

  it('logs out', async () => {
    const api = installFakeApi();
    const { user, router } = renderApp('/options');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(api.state.log).toContain('DELETE /api/session');
  });

  it('logs out to a plain login page even when a live poll is refused meanwhile', async () => {
    const api = installFakeApi();
    const fake = api.fetchMock.getMockImplementation()!;
    let answerLogout: (() => void) | null = null;
    api.fetchMock.mockImplementation(async (input, init = {}) => {
      if (String(input) === '/api/session' && init.method === 'DELETE') {
        // The server has ended the session; its answer is still on the way.
        api.expireSession();
        await new Promise<void>((resolve) => (answerLogout = resolve));
      }
      return fake(input, init);
    });
    const { user, router, queryClient } = renderApp('/revisions');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(answerLogout).not.toBeNull());
    // A poll of the live status is answered 401 before the logout's own answer arrives.
    await queryClient.refetchQueries({ queryKey: ['ipfe'] });
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    answerLogout!();
    await waitFor(() => expect(api.state.log).toContain('DELETE /api/session'));
    expect(router.state.location.search).toBe('');
  });
});

describe('roles', () => {
  it('shows a viewer the View without insert, edit or delete controls', async () => {
    installFakeApi({ user: { name: 'vera', role: 'viewer' } });
    renderApp('/target-sets');
    expect(await screen.findByRole('heading', { name: 'Target Sets [View]' })).toBeInTheDocument();
    expect(await screen.findByText('192.168.10.100')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Insert/ })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(screen.queryByRole('radio', { name: /Select Target Set/ })).toBeNull();
    // Reading is allowed: the export is a download, of the config document or either CSV layout.
    expect(screen.getByRole('link', { name: 'Export (JSON document)' })).toHaveAttribute(
      'href',
      '/api/export',
    );
    expect(screen.getByRole('link', { name: 'Export (source bulk file)' })).toHaveAttribute(
      'href',
      '/api/export/source-csv?format=source',
    );
    expect(screen.getByRole('link', { name: 'Export (named-column CSV)' })).toHaveAttribute(
      'href',
      '/api/export/source-csv?format=named',
    );
  });

  it('shows a viewer who types an edit URL a not-permitted page', async () => {
    const api = installFakeApi({ user: { name: 'vera', role: 'viewer' } });
    renderApp('/target-sets/1/edit');
    expect(await screen.findByRole('heading', { name: 'Not permitted' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'OK' })).toBeNull();
    expect(api.state.log).not.toContain('GET /api/target-sets/1');
  });

  it('shows a viewer the options read-only', async () => {
    installFakeApi({ user: { name: 'vera', role: 'viewer' } });
    renderApp('/options');
    const address = await screen.findByLabelText('IPFE A1 address');
    expect(address).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Apply' })).toBeNull();
  });
});

describe('Target Sets [View]', () => {
  it('lists each Target Set with its IP list nested: weight, chance and port range', async () => {
    installFakeApi();
    renderApp('/target-sets');
    const list = await screen.findByRole('table', { name: 'IP list of Target Set 1' });
    const rows = within(list).getAllByRole('row');
    expect(rows[1]).toHaveTextContent(/192\.168\.10\.11.*mp1.*first.*100.*66\.7 %.*16384–16895/);
    expect(rows[2]).toHaveTextContent(/192\.168\.10\.12.*mp2.*50.*33\.3 %.*16896–17407/);
    const main = screen.getByRole('table', { name: /Target Sets, each with its IP list/ });
    expect(main).toHaveTextContent(/active IPFE-A1 · standby IPFE-A2/);
    expect(main).toHaveTextContent(/Least Load.*Fm\/Fc 50\/50 · deviation 5.*PNA on, D 1/);
  });

  it('explains what to configure first when there is no Target Set', async () => {
    installFakeApi({ targetSets: [], appServers: [] });
    renderApp('/target-sets');
    expect(await screen.findByText('No Target Set yet.')).toBeInTheDocument();
    const steps = screen.getAllByRole('listitem').filter((li) => li.closest('.checklist'));
    expect(steps.map((s) => s.textContent)).toEqual([
      expect.stringMatching(/^✔ Done: the IPFE node addresses/),
      expect.stringMatching(/^✔ Done: an XSI network/),
      expect.stringMatching(/^○ To do: the application servers/),
    ]);
    expect(screen.getByRole('link', { name: 'Network › Application Servers' })).toHaveAttribute(
      'href',
      '/app-servers',
    );
  });

  it('enables Edit and Delete once a Target Set is selected, and Delete asks first', async () => {
    installFakeApi();
    const { user } = renderApp('/target-sets');
    const edit = await screen.findByRole('button', { name: 'Edit' });
    expect(edit).toBeDisabled();
    await user.click(await screen.findByRole('radio', { name: 'Select Target Set 1' }));
    expect(edit).toBeEnabled();
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete Target Set 1?' });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
