import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { ipfeView } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';
import { fleetOf } from './sync-state';

afterEach(() => vi.unstubAllGlobals());

describe('the header badge', () => {
  it('reads "2/2 IPFEs in sync" in green when every configured IPFE runs the latest revision', async () => {
    installFakeApi();
    renderApp('/target-sets');
    const badge = await screen.findByRole('link', { name: '2/2 IPFEs in sync' });
    expect(badge).toHaveAttribute('href', '/status');
    expect(badge).toHaveClass('sync-ok');
  });

  it('turns amber while a push is pending, and links to the IPFE that is behind', async () => {
    installFakeApi({ ipfe: ipfeView({ A2: { state: 'pending', desiredRevision: 13 } }) });
    renderApp('/target-sets');
    const badge = await screen.findByRole('link', { name: /1\/2 IPFEs in sync/ });
    expect(badge).toHaveTextContent('1/2 IPFEs in sync · IPFE A2 pending');
    expect(badge).toHaveClass('sync-warn');
    expect(badge).toHaveAttribute('href', '/status#ipfe-A2');
  });

  it('turns red when an IPFE rejected the revision, naming it before a pending one', async () => {
    installFakeApi({
      ipfe: ipfeView({
        A1: { state: 'pending' },
        A2: { state: 'rejected', rejected: { revision: 12, error: 'bad' } },
      }),
    });
    const { user, router } = renderApp('/target-sets');
    const badge = await screen.findByRole('link', { name: /0\/2 IPFEs in sync/ });
    expect(badge).toHaveTextContent('0/2 IPFEs in sync · IPFE A2 rejected');
    expect(badge).toHaveClass('sync-error');
    await user.click(badge);
    expect(await screen.findByRole('heading', { name: 'Status & Manage' })).toBeInTheDocument();
    expect(router.state.location.hash).toBe('#ipfe-A2');
  });

  it('counts configured slots only, and sends to Options when none is configured', async () => {
    expect(fleetOf(ipfeView().items)).toMatchObject({ configured: 2, synced: 2, tone: 'ok' });
    installFakeApi({
      ipfe: ipfeView({
        A1: { configured: false, state: 'not configured', owned: [] },
        A2: { configured: false, state: 'not configured' },
      }),
    });
    renderApp('/target-sets');
    expect(await screen.findByRole('link', { name: 'No IPFE configured' })).toHaveAttribute(
      'href',
      '/options',
    );
  });

  it('says "applied", not "in sync", while every IPFE runs the revision but a Target Set is served by nobody', async () => {
    const reason =
      'Target Set 2 is active-active but nothing is announced: only the direct data path serves it';
    installFakeApi({
      ipfe: ipfeView({}, [{ targetSet: 2, tsa: '192.168.10.102', reason }]),
    });
    renderApp('/target-sets');
    const badge = await screen.findByRole('link', {
      name: '2/2 applied · Target Set 2 not served',
    });
    expect(badge).toHaveClass('sync-error');
    expect(badge).toHaveAttribute('href', '/target-sets');
    expect(badge).toHaveAttribute('title', `192.168.10.102: ${reason}`);
    expect(screen.queryByText(/IPFEs in sync/)).not.toBeInTheDocument();
  });
});

describe('the header alarm badge', () => {
  const alarm = (code: number, severity: string) => ({
    id: code,
    slot: 'A1',
    code,
    name: `alarm ${code}`,
    severity,
    targetSet: null,
    server: null,
    text: '',
    raisedAt: '2026-12-03T00:00:00Z',
    clearedAt: null,
  });

  it('shows the active alarms at their highest severity on every page, linking to Alarms', async () => {
    installFakeApi({
      alarms: {
        active: [alarm(5001, 'major'), alarm(5009, 'critical'), alarm(5005, 'minor')],
        history: [],
      },
    });
    const { user } = renderApp('/target-sets');
    const badge = await screen.findByRole('link', { name: '3 active alarms · 1 critical' });
    expect(badge).toHaveClass('sev-critical');
    await user.click(badge);
    expect(await screen.findByRole('heading', { name: /Alarms/ })).toBeInTheDocument();
  });

  it('is quiet when no alarm is active', async () => {
    installFakeApi();
    renderApp('/target-sets');
    expect(await screen.findByRole('link', { name: 'No active alarms' })).toHaveClass('alarm-none');
  });
});
