import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiToken } from '@ipfe/schema';
import { renderWithRouter } from '@/testing/render';
import { ApiTokens } from './api-tokens';

afterEach(() => vi.unstubAllGlobals());

const json = (status: number, body: unknown) =>
  new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });

/** The token routes of the API as a stand-in: a list per user, secrets made up on creation. */
function installTokenApi(user: string, tokens: ApiToken[]) {
  let next = 100;
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const path = new URL(String(input), 'http://oam.test').pathname;
    const method = (init.method ?? 'GET').toUpperCase();
    if (method === 'GET' && path === '/api/users/me/tokens') {
      return json(200, { items: tokens.filter((t) => t.user === user) });
    }
    if (method === 'GET' && path === '/api/tokens') return json(200, { items: tokens });
    if (method === 'POST' && path === '/api/users/me/tokens') {
      const { name } = JSON.parse(String(init.body)) as { name: string };
      if (name.trim() === '') {
        return json(400, {
          error: {
            code: 'VALIDATION',
            message: 'name is required',
            fields: [{ path: 'name', message: 'name is required' }],
          },
        });
      }
      const token = {
        id: next++,
        user,
        name,
        createdAt: '2026-12-01T10:00:00.000Z',
        lastUsedAt: null,
      };
      tokens.push(token);
      return json(201, { token, secret: `ipfe_secret-${token.id}` });
    }
    const revoke = /^\/api\/(?:users\/me\/)?tokens\/(\d+)$/.exec(path);
    if (method === 'DELETE' && revoke) {
      const index = tokens.findIndex((t) => t.id === Number(revoke[1]));
      tokens.splice(index, 1);
      return json(204, null);
    }
    return json(404, { error: { code: 'NOT_FOUND', message: `${method} ${path}`, fields: [] } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const token = (id: number, user: string, name: string): ApiToken => ({
  id,
  user,
  name,
  createdAt: '2026-11-30T09:00:00.000Z',
  lastUsedAt: null,
});

describe('API tokens on the Users page', () => {
  it('creates a token and shows its secret once, with a copy hint', async () => {
    installTokenApi('olga', []);
    const { user } = renderWithRouter(<ApiTokens everyone={false} />);
    expect(await screen.findByText('No API token.')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Token name'), 'gitops pipeline{Enter}');
    const shown = await screen.findByRole('status');
    expect(shown).toHaveTextContent('Copy it now: it is not shown again.');
    expect(within(shown).getByLabelText('Secret of token gitops pipeline')).toHaveValue(
      'ipfe_secret-100',
    );
    const table = await screen.findByRole('table', { name: 'Your API tokens' });
    expect(within(table).getByText('gitops pipeline')).toBeInTheDocument();
    expect(within(table).getByText('never')).toBeInTheDocument();
    expect(screen.getByLabelText('Token name')).toHaveValue('');
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    expect(screen.queryByText(/ipfe_secret-100/)).toBeNull();
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('revokes a token only after the confirmation, with the keyboard', async () => {
    installTokenApi('olga', [token(1, 'olga', 'ci'), token(2, 'olga', 'dashboard')]);
    const { user } = renderWithRouter(<ApiTokens everyone={false} />);
    const revoke = await screen.findByRole('button', { name: 'Revoke token ci' });
    revoke.focus();
    await user.keyboard('{Enter}');
    const dialog = screen.getByRole('dialog', { name: 'Revoke token ci?' });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByRole('button', { name: 'Revoke token ci' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Revoke token ci' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Revoke' }));
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Revoke token ci' })).toBeNull(),
    );
    expect(screen.getByRole('button', { name: 'Revoke token dashboard' })).toBeInTheDocument();
  });

  it("shows admins every user's tokens, and the API's refusal of a bad name", async () => {
    installTokenApi('ada', [token(1, 'ada', 'backup'), token(2, 'victor', 'grafana')]);
    const { user } = renderWithRouter(<ApiTokens everyone />);
    const all = await screen.findByRole('table', { name: "Every user's API tokens" });
    expect(within(all).getByText('victor')).toBeInTheDocument();
    expect(
      within(all).getByRole('button', { name: 'Revoke token grafana of victor' }),
    ).toBeInTheDocument();
    await user.type(screen.getByLabelText('Token name'), '   {Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('name is required');
    expect(screen.getByLabelText('Token name')).toHaveAttribute('aria-invalid', 'true');
  });
});
