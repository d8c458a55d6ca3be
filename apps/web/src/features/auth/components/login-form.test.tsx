import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

describe('the login form', () => {
  it('names an empty field when Log in is pressed, on the first one, and sends nothing', async () => {
    const api = installFakeApi({ user: null });
    const { user } = renderApp('/login');
    const name = await screen.findByLabelText('User name');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(name).toHaveAccessibleDescription('User name is required');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Password is required');
    expect(name).toHaveFocus();
    expect(api.state.log).not.toContain('POST /api/session');

    // The error follows the value from then on.
    await user.type(name, 'olga');
    expect(name).not.toHaveAccessibleDescription('User name is required');
    expect(name).not.toHaveAttribute('aria-invalid');
  });

  it('says nothing about a field before it is left, then says it is required', async () => {
    installFakeApi({ user: null });
    const { user } = renderApp('/login');
    const name = await screen.findByLabelText('User name');
    await user.click(name);
    expect(screen.queryByText('User name is required')).not.toBeInTheDocument();
    await user.tab();
    expect(name).toHaveAccessibleDescription('User name is required');
    expect(screen.queryByText('Password is required')).not.toBeInTheDocument();
  });

  it('logs in by the keyboard alone, with the user name as typed less its spaces', async () => {
    const api = installFakeApi({ user: null });
    const { user, router } = renderApp('/login');
    await user.type(await screen.findByLabelText('User name'), '  olga ');
    await user.type(screen.getByLabelText('Password'), 'secret123{Enter}');
    expect(await screen.findByRole('heading', { name: 'Target Sets [View]' })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/target-sets'));
    const login = api.fetchMock.mock.calls.find(([, init]) => init?.method === 'POST');
    expect(JSON.parse(String(login?.[1]?.body))).toEqual({
      username: 'olga',
      password: 'secret123',
    });
  });
});
