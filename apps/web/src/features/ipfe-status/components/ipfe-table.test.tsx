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
      A1: { lastContact: '2026-01-01T00:00:08.000Z', dataplane: 'kernel', connections: 1234 },
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
    expect(a1).toHaveTextContent('kernel data path · 1,234 open connections');
    const a2 = rowOf('A2');
    expect(within(a2).getByText('rejected · r13')).toBeInTheDocument();
    expect(a2).toHaveTextContent('servers.0.weight: Weighting must be at most 65535 (runs r12)');
    expect(within(a2).getByText('IPFE-A1 silent')).toBeInTheDocument();
    expect(a2).toHaveTextContent('user-space data path · 0 open connections');
    const b1 = rowOf('B1');
    expect(b1).not.toHaveTextContent('data path'); // nothing reported: nothing claimed
    expect(within(b1).getByText('not configured')).toBeInTheDocument();
    expect(within(b1).getByRole('link', { name: 'Configure under Options' })).toHaveAttribute(
      'href',
      '/options',
    );
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
});
