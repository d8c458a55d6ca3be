import type { OamMember } from '@ipfe/schema';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { agentStatus, ipfeView, liveServer } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

describe('the Status & Manage page', () => {
  it('puts each Target Set beside the live figures of the IPFE that serves it', async () => {
    const api = installFakeApi({
      agentStatus: {
        A1: agentStatus([
          liveServer('192.168.10.11', { load: 4, active: 21 }),
          liveServer('192.168.10.12', { load: 6, active: 9, state: 'offline' }),
        ]),
        A2: null,
      },
    });
    renderApp('/status');
    expect(
      await screen.findByRole('heading', { name: 'Status & Manage', level: 1 }),
    ).toBeInTheDocument();
    const ipfe = await screen.findByRole('table', { name: 'IPFE nodes' });
    expect(within(ipfe).getByRole('row', { name: /^IPFE-A1/ })).toHaveTextContent('synced · r12');
    const panel = await screen.findByRole('region', { name: /Target Set 1/ });
    expect(panel).toHaveTextContent('Owner IPFE-A1');
    const servers = within(panel).getByRole('table', { name: 'Servers of Target Set 1' });
    expect(await within(servers).findByRole('row', { name: /192\.168\.10\.11/ })).toHaveTextContent(
      /normal4\.00021$/,
    );
    expect(within(servers).getByRole('row', { name: /192\.168\.10\.12/ })).toHaveTextContent(
      /offline/,
    );
    expect(
      within(panel).getByRole('group', { name: 'Least Load picture of Target Set 1' }),
    ).toHaveTextContent('offline: refuses new connections');
    // Only configured IPFEs are asked for their status.
    expect(api.state.log).toContain('GET /api/ipfe/A1/status');
    expect(api.state.log).not.toContain('GET /api/ipfe/B1/status');
  });

  it('shows the mate taking over: the standby owns the TSA, and its alarm is listed', async () => {
    installFakeApi({
      ipfe: ipfeView({
        A1: { state: 'unreachable', lastError: 'ECONNREFUSED', owned: [], mateAlive: null },
        A2: {
          owned: [{ tsa: '192.168.10.100', targetSet: 1, role: 'standby' }],
          mateAlive: false,
          alarms: [
            {
              code: 5012,
              name: 'Mate Heartbeat Timeout',
              severity: 'major',
              targetSet: null,
              server: null,
              text: 'No beacon',
            },
          ],
        },
      }),
      agentStatus: {
        A2: agentStatus([liveServer('192.168.10.11'), liveServer('192.168.10.12')], {
          slot: 'A2',
        }),
      },
    });
    renderApp('/status');
    const panel = await screen.findByRole('region', { name: /Target Set 1/ });
    expect(await within(panel).findByText('IPFE-A2')).toBeInTheDocument();
    expect(panel).toHaveTextContent('standby serving (active IPFE-A1)');
    const a2 = screen.getByRole('row', { name: /^IPFE-A2/ });
    expect(a2).toHaveTextContent('major 5012 Mate Heartbeat Timeout');
    expect(a2).toHaveTextContent('IPFE-A1 silent');
    expect(screen.getByRole('row', { name: /^IPFE-A1/ })).toHaveTextContent(
      'unreachableECONNREFUSED',
    );
    expect(screen.getByRole('link', { name: '1 active alarm' })).toHaveAttribute('href', '/alarms');
  });
});

describe('the OAM servers of Status & Manage', () => {
  const member = (over: Partial<OamMember>): OamMember => ({
    id: 'x',
    address: '127.0.0.1:8080',
    role: 'follower',
    startedAt: new Date(Date.now() - 3_600_000).toISOString(),
    lastSeen: new Date(Date.now() - 1_000).toISOString(),
    self: false,
    present: true,
    ...over,
  });

  it('lists every OAM of the cluster with its role and when it was heard from', async () => {
    installFakeApi({
      oams: [
        member({ id: 'p', address: '10.0.0.1:8080', role: 'leader' }),
        member({ id: 'b', address: '10.0.0.2:8080', self: true }),
        member({
          id: 'c',
          address: '10.0.0.3:8080',
          present: false,
          lastSeen: new Date(Date.now() - 90_000).toISOString(),
        }),
      ],
    });
    renderApp('/status');
    const table = await screen.findByRole('table', { name: 'OAM servers of this cluster' });
    expect(within(table).getByRole('row', { name: /10\.0\.0\.1/ })).toHaveTextContent('leader');
    expect(within(table).getByRole('row', { name: /10\.0\.0\.2/ })).toHaveTextContent(
      /\(this one\)follower.*now$/,
    );
    // One that stopped heartbeating is gone, never a follower that is fine.
    const gone = within(table).getByRole('row', { name: /10\.0\.0\.3/ });
    expect(gone).toHaveTextContent('gone');
    expect(gone).not.toHaveTextContent('follower');
    expect(screen.queryByText('No OAM leads right now')).not.toBeInTheDocument();
  });

  it('warns when no OAM leads: nothing is pushed and no trap is sent', async () => {
    installFakeApi({
      oams: [
        member({ id: 'b', self: true }),
        member({ id: 'p', address: '10.0.0.1:8080', role: 'leader', present: false }),
      ],
    });
    renderApp('/status');
    const warning = await screen.findByText('No OAM leads right now');
    expect(warning.closest('[role="status"]')).toHaveTextContent(/nothing is pushed/i);
  });
});
