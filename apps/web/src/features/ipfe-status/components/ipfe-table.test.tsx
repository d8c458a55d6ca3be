import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ipfeView } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import { IpfeTable } from './ipfe-table';

const rowOf = (slot: string) => screen.getByRole('row', { name: new RegExp(`^IPFE-${slot}`) });

describe('IpfeTable', () => {
  it('shows each IPFE’s sync state in words, its last contact and what it serves', () => {
    const now = Date.parse('2026-01-01T00:00:10.000Z');
    const view = ipfeView({
      A1: {
        lastContact: '2026-01-01T00:00:08.000Z',
        dataplane: 'kernel',
        forwards: ['tcp'],
        connections: 1234,
      },
      A2: {
        state: 'rejected',
        desiredRevision: 13,
        appliedRevision: 12,
        rejected: { revision: 13, error: 'servers.0.weight: Weighting must be at most 65535' },
        mateAlive: false,
      },
    });
    renderWithRouter(<IpfeTable slots={view.items} now={now} />);
    const a1 = rowOf('A1');
    expect(within(a1).getByText('synced · r12')).toBeInTheDocument();
    expect(within(a1).getByText('2 s ago')).toHaveAttribute('datetime', '2026-01-01T00:00:08.000Z');
    expect(a1).toHaveTextContent('192.168.10.100 TS 1 (active)');
    expect(a1).toHaveTextContent('IPFE-A2 alive');
    expect(a1).toHaveTextContent('Kernel NAT data path · 1,234 open connections');
    const a2 = rowOf('A2');
    expect(within(a2).getByText('rejected · r13')).toBeInTheDocument();
    expect(a2).toHaveTextContent('servers.0.weight: Weighting must be at most 65535 (runs r12)');
    expect(within(a2).getByText('IPFE-A1 silent')).toBeInTheDocument();
    expect(a2).toHaveTextContent('User space data path · 0 open connections');
    const b1 = rowOf('B1');
    expect(b1).not.toHaveTextContent('data path'); // nothing reported: nothing claimed
    expect(within(b1).getByText('not configured')).toBeInTheDocument();
    expect(within(b1).getByRole('link', { name: 'Configure under Options' })).toHaveAttribute(
      'href',
      '/options',
    );
  });

  it('says which data path each IPFE runs and whether SCTP is forwarded there, in words', () => {
    const view = ipfeView({
      A1: { dataplane: 'direct', forwards: ['tcp', 'sctp'], connections: 3 },
      A2: { dataplane: 'kernel', forwards: ['tcp'] },
      B1: { state: 'unreachable', dataplane: null, forwards: null },
    });
    renderWithRouter(<IpfeTable slots={view.items} now={Date.now()} />);
    const agent = (slot: string) => within(rowOf(slot)).getAllByRole('cell')[0]!;
    expect(agent('A1')).toHaveTextContent(
      '10.0.0.1:8701Direct (transparent) data path · 3 open connectionsTCP and SCTP forwarded',
    );
    expect(agent('A2')).toHaveTextContent(
      '10.0.0.2:8701Kernel NAT data path · 0 open connectionsTCP only: SCTP not forwarded',
    );
    // An agent that has not reported: nothing is claimed about what it forwards.
    expect(rowOf('B1')).not.toHaveTextContent(/forwarded|data path/);
  });

  it('says an unreachable IPFE is retried, with the last error, and a pending one what it runs', () => {
    const view = ipfeView({
      A1: { state: 'unreachable', lastError: 'ECONNREFUSED', desiredRevision: 13 },
      A2: { state: 'pending', desiredRevision: 13, appliedRevision: null },
    });
    renderWithRouter(<IpfeTable slots={view.items} now={Date.now()} />);
    expect(rowOf('A1')).toHaveTextContent('unreachableECONNREFUSED; retrying r13 (runs r12)');
    expect(rowOf('A2')).toHaveTextContent('pending · r13runs no configuration from this OAM');
  });

  it('writes an IPv6 agent address in brackets before its port', () => {
    const view = ipfeView({ A2: { address: 'fd00:1::12', agentPort: 8701 } });
    renderWithRouter(<IpfeTable slots={view.items} now={Date.now()} />);
    expect(within(rowOf('A2')).getByText('[fd00:1::12]:8701')).toBeInTheDocument();
    expect(within(rowOf('A1')).getByText('10.0.0.1:8701')).toBeInTheDocument();
  });

  it('folds identical alarms into one line that says what they are on', () => {
    const offline = (targetSet: number, server: string) => ({
      code: 5001,
      name: 'Backend Unavailable',
      severity: 'major',
      targetSet,
      server,
      text: `Application server ${server} is offline`,
    });
    const view = ipfeView({
      A1: {
        alarms: [
          offline(1, '127.0.1.1'),
          offline(1, '127.0.1.2'),
          offline(2, '127.0.1.1'),
          offline(2, '127.0.1.2'),
          offline(2, '127.0.1.3'),
          ...[1, 2].map((n) => ({
            code: 5009,
            name: 'No Available Servers in Target Set',
            severity: 'critical',
            targetSet: n,
            server: null,
            text: `No server of Target Set ${n} can take new connections`,
          })),
          {
            code: 5012,
            name: 'Mate Heartbeat Timeout',
            severity: 'major',
            targetSet: null,
            server: null,
            text: 'No beacon from IPFE A2 for 3000 ms',
          },
        ],
      },
    });
    renderWithRouter(<IpfeTable slots={view.items} now={Date.now()} />);
    const lines = within(rowOf('A1'))
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(lines).toEqual([
      'critical 5009 No Available Servers in Target Set ×2 on TS 1, 2',
      'major 5001 Backend Unavailable ×5 on 127.0.1.1, 127.0.1.2 (TS 1, 2); 127.0.1.3 (TS 2)',
      'major 5012 Mate Heartbeat Timeout',
    ]);
  });
});
