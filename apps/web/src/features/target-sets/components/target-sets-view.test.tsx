import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { targetSetView } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import { TargetSetsView } from './target-sets-view';
import type { TargetSetView } from '../api/get-target-sets';

const servers = [{ address: '192.168.10.11' }, { address: '192.168.10.12' }];

/** A Target Set as GET /api/target-sets answers it, with what its serving IPFE reports. */
function served(
  number: number,
  protocols: 'tcp' | 'sctp' | 'both',
  live: Pick<TargetSetView, 'owner' | 'notForwarded'>,
): TargetSetView {
  return {
    ...targetSetView({
      number,
      family: 'ipv4',
      protocols,
      algorithm: 'hash',
      primary: { address: `192.168.10.${100 + number}`, activeIpfe: 'A1' },
      servers,
    }),
    activeBindings: live.owner ? { available: 2, total: 2 } : null,
    ...live,
  };
}

/** The row of Target Set `n` (its number heads the row). */
const rowOf = (n: number) =>
  screen
    .getAllByRole('row')
    .find((r) => within(r).queryByRole('rowheader')?.textContent?.startsWith(`${n}IPv4`))!;
const protocolsOf = (n: number) => within(rowOf(n)).getAllByRole('cell')[1]!;
const stateOf = (n: number) => within(rowOf(n)).getAllByRole('cell')[0]!;

describe('TargetSetsView', () => {
  it('says SCTP is not forwarded only where the serving IPFE reports it so', () => {
    renderWithRouter(
      <TargetSetsView
        targetSets={[
          // Served by a kernel NAT path: TCP only.
          served(1, 'both', { owner: 'A1', notForwarded: ['sctp'] }),
          served(2, 'sctp', { owner: 'A1', notForwarded: ['sctp'] }),
          // Served by a direct path: TCP and SCTP.
          served(3, 'both', { owner: 'A2', notForwarded: [] }),
          served(4, 'sctp', { owner: 'A2', notForwarded: [] }),
          // Nobody reports it: nothing is claimed either way.
          served(5, 'both', { owner: null, notForwarded: null }),
        ]}
        selected={null}
      />,
    );
    expect(protocolsOf(1)).toHaveTextContent(/^TCP, SCTPSCTP not forwarded on IPFE-A1$/);
    expect(protocolsOf(2)).toHaveTextContent(/^SCTPnot forwarded on IPFE-A1$/);
    expect(protocolsOf(3)).toHaveTextContent(/^TCP, SCTP$/);
    expect(protocolsOf(4)).toHaveTextContent(/^SCTP$/);
    expect(protocolsOf(5)).toHaveTextContent(/^TCP, SCTP$/);
  });

  it('is green "Enabled" only while it serves: "Not served" with the reason, or "No server available"', () => {
    const reason =
      '192.168.10.102: Target Set 2 is active-active but nothing is announced: only the direct data path serves it';
    renderWithRouter(
      <TargetSetsView
        targetSets={[
          served(1, 'tcp', { owner: 'A1', notForwarded: [] }),
          { ...served(2, 'tcp', { owner: null, notForwarded: null }), notServed: reason },
          {
            ...served(3, 'tcp', { owner: 'A1', notForwarded: [] }),
            activeBindings: { available: 0, total: 2 },
          },
          { ...served(4, 'tcp', { owner: null, notForwarded: null }), disabled: true },
        ]}
        selected={null}
      />,
    );
    expect(stateOf(1)).toHaveTextContent(/^Enabled$/);
    expect(within(stateOf(1)).getByText('Enabled')).toHaveClass('badge-on');
    expect(stateOf(2)).toHaveTextContent(`Not served${reason}`);
    expect(within(stateOf(2)).getByText('Not served')).toHaveClass('badge-error');
    expect(stateOf(3)).toHaveTextContent('No server available0 of 2 servers take new connections');
    expect(stateOf(4)).toHaveTextContent(/^Disabled$/);
  });

  it('names the IPFEs of each address: active and standby, or the active-active group', () => {
    const activeActive = targetSetView({
      number: 2,
      family: 'ipv4',
      algorithm: 'hash',
      serving: 'activeActive',
      activeActiveIpfes: ['A1', 'A2', 'B1'],
      primary: { address: '192.168.10.102' },
      servers,
    });
    renderWithRouter(
      <TargetSetsView
        targetSets={[served(1, 'tcp', { owner: null, notForwarded: null }), activeActive]}
        selected={null}
      />,
    );
    const primaryOf = (n: number) => within(rowOf(n)).getAllByRole('cell')[2]!;
    expect(primaryOf(1)).toHaveTextContent('192.168.10.101active IPFE-A1 · standby IPFE-A2');
    expect(primaryOf(2)).toHaveTextContent(
      '192.168.10.102IPFE-A1, IPFE-A2, IPFE-B1 (active-active)',
    );
  });
});
