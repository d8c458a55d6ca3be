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
});
