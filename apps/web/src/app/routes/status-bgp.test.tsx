import { optionsSchema } from '@ipfe/schema';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { agentStatus, liveServer, options } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

const withBgp = optionsSchema.parse({
  ...options,
  bgp: { asn: 65010, peers: [{ address: '10.0.0.254', asn: 65000 }] },
});

describe('the Status & Manage page: BGP (decision 018)', () => {
  it('shows each IPFE’s BGP sessions with their BFD state and what it announces; — where its agent reports none', async () => {
    installFakeApi({
      options: withBgp,
      agentStatus: {
        A1: agentStatus([liveServer('192.168.10.11', { load: 4, active: 2 })], {
          bgp: {
            sessions: [{ peer: '10.0.0.254', state: 'established', bfd: 'up' }],
            announced: ['192.168.10.100/32', 'fd00::100/128'],
          },
        }),
        // An agent from before issue 18: no bgp field.
        A2: agentStatus([], { slot: 'A2' }),
      },
    });
    renderApp('/status');
    const table = await screen.findByRole('table', { name: 'BGP sessions of the IPFE nodes' });
    const a1 = await within(table).findByRole('row', { name: /^IPFE-A1/ });
    expect(a1).toHaveTextContent('10.0.0.254 established BFD up');
    expect(a1).toHaveTextContent('192.168.10.100/32, fd00::100/128');
    expect(within(table).getByRole('row', { name: /^IPFE-A2/ })).toHaveTextContent(/^IPFE-A2——$/);
  });

  it('says a session that is down, and an IPFE that announces nothing', async () => {
    installFakeApi({
      options: withBgp,
      agentStatus: {
        A1: agentStatus([], {
          bgp: {
            sessions: [{ peer: '10.0.0.254', state: 'down', bfd: 'down' }],
            announced: [],
          },
        }),
        A2: null,
      },
    });
    renderApp('/status');
    const table = await screen.findByRole('table', { name: 'BGP sessions of the IPFE nodes' });
    const a1 = await within(table).findByRole('row', { name: /^IPFE-A1/ });
    await vi.waitFor(() => expect(a1).toHaveTextContent('10.0.0.254 down BFD down'));
    expect(a1).toHaveTextContent('nothing');
  });

  it('has no BGP block while BGP is not configured and no agent reports it', async () => {
    installFakeApi({ agentStatus: { A1: agentStatus([]), A2: null } });
    renderApp('/status');
    expect(await screen.findByRole('table', { name: 'IPFE nodes' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'BGP' })).toBeNull();
  });
});
