import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp } from '@/testing/render';
import type { AuditEntry } from '../api/get-audit';

afterEach(() => vi.unstubAllGlobals());

const entry = (id: number, change: Partial<AuditEntry> = {}): AuditEntry => ({
  id,
  at: '2026-01-01T10:00:00.000Z',
  user: 'olga',
  address: '127.0.0.1',
  action: 'put',
  target: '/api/target-sets/1',
  status: 200,
  detail: 'revision 12',
  ...change,
});

describe('the Audit log page', () => {
  it('shows admins every entry, newest first, with who, what and the outcome', async () => {
    installFakeApi({
      user: { name: 'ada', role: 'admin' },
      audit: [
        entry(3),
        entry(2, {
          user: 'mallory',
          action: 'login-failed',
          target: '/api/session',
          status: 401,
          detail: null,
        }),
        entry(1, { user: 'ada', action: 'login', target: '/api/session', detail: null }),
      ],
    });
    renderApp('/audit');
    const table = await screen.findByRole('table', { name: 'Audit log, newest first' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getByRole('rowheader').textContent)).toEqual([
      'edit',
      'failed login',
      'log in',
    ]);
    expect(rows[0]).toHaveTextContent('/api/target-sets/1done (200)revision 12');
    expect(rows[1]).toHaveTextContent('mallory127.0.0.1failed login/api/sessionrefused (401)');
    const menu = screen.getByRole('navigation', { name: 'Main menu' });
    expect(within(menu).getByRole('link', { name: 'Audit log' })).toHaveAttribute(
      'aria-current',
      'page',
    );
  });

  it('loads older entries a page at a time', async () => {
    installFakeApi({
      user: { name: 'ada', role: 'admin' },
      audit: Array.from({ length: 150 }, (_, i) => entry(150 - i)),
    });
    const { user } = renderApp('/audit');
    const table = await screen.findByRole('table', { name: 'Audit log, newest first' });
    expect(within(table).getAllByRole('row')).toHaveLength(101);
    await user.click(screen.getByRole('button', { name: 'Older entries' }));
    expect(await screen.findByText('150 entries shown.', { exact: false })).toBeInTheDocument();
    expect(within(table).getAllByRole('row')).toHaveLength(151);
    expect(screen.queryByRole('button', { name: 'Older entries' })).toBeNull();
  });

  it('is not for operators', async () => {
    installFakeApi({ user: { name: 'olga', role: 'operator' } });
    renderApp('/audit');
    expect(await screen.findByRole('heading', { name: 'Not permitted' })).toBeInTheDocument();
    const menu = screen.getByRole('navigation', { name: 'Main menu' });
    expect(within(menu).queryByRole('link', { name: 'Audit log' })).toBeNull();
  });
});
