import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { agentStatus, liveServer, targetSet1, targetSetView } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import { TargetSetStatus, type LiveTargetSet } from './target-set-status';

const labels = new Map([
  ['192.168.10.11', 'mp1'],
  ['192.168.10.12', 'mp2'],
  ['192.168.10.13', 'mp3'],
]);

const threeServers = targetSetView({
  number: 1,
  family: 'ipv4',
  primary: { address: '192.168.10.100', activeIpfe: 'A1' },
  leastLoad: { allowedDeviation: 5 },
  servers: [
    { address: '192.168.10.11' },
    { address: '192.168.10.12' },
    { address: '192.168.10.13', weight: 0 },
  ],
});

const liveOf = (servers: Parameters<typeof agentStatus>[0]): LiveTargetSet =>
  agentStatus(servers).targetSets[0]!;

describe('TargetSetStatus', () => {
  it('shows owner, active bindings and each server’s state, load and open connections', () => {
    const live = liveOf([
      liveServer('192.168.10.11', { load: 12.5, newPerSecond: 4, active: 17 }),
      liveServer('192.168.10.12', { load: 30, state: 'stressed', active: 3 }),
      liveServer('192.168.10.13', { weight: 0, load: 2, active: 1 }),
    ]);
    renderWithRouter(
      <TargetSetStatus
        ts={{ ...threeServers, owner: 'A1', activeBindings: { available: 1, total: 3 } }}
        live={live}
        labels={labels}
        leastLoadThreshold={0}
      />,
    );
    const panel = screen.getByRole('region', { name: /Target Set 1/ });
    expect(panel).toHaveTextContent('Owner IPFE-A1');
    expect(panel).toHaveTextContent('Active bindings 1/3');
    const servers = within(panel).getByRole('table', { name: 'Servers of Target Set 1' });
    const rows = within(servers)
      .getAllByRole('row')
      .slice(1)
      .map((r) => r.textContent);
    expect(rows).toEqual([
      '192.168.10.11 mp1100normal12.5417',
      '192.168.10.12 mp2100stressed30.003',
      '192.168.10.13 mp30normal2.0001',
    ]);
    expect(
      within(panel).getByRole('img', { name: /Open connections per server, Target Set 1/ }),
    ).toHaveAccessibleDescription(
      'mp1 192.168.10.11: 17; mp2 192.168.10.12: 3; mp3 192.168.10.13: 1',
    );
  });

  it('draws the Least Load picture, with a table that says who shares new connections and why', () => {
    const live = liveOf([
      liveServer('192.168.10.11', { load: 10 }),
      liveServer('192.168.10.12', { load: 13 }),
      liveServer('192.168.10.13', { weight: 0, load: 1 }),
    ]);
    renderWithRouter(
      <TargetSetStatus
        ts={{ ...threeServers, owner: 'A1' }}
        live={live}
        labels={labels}
        leastLoadThreshold={0}
      />,
    );
    const picture = screen.getByRole('group', { name: 'Least Load picture of Target Set 1' });
    const chart = within(picture).getByRole('img', { name: /Least Load picture of Target Set 1/ });
    expect(chart).toHaveAccessibleDescription(
      /^Lowest L 10\.0; band up to 15\.0 \(allowed deviation 5\)\./,
    );
    expect(chart).toHaveAccessibleDescription(
      /mp3 192\.168\.10\.13: L 1\.00, weight 0: no new connections\./,
    );
    const table = within(picture).getByRole('table', {
      name: /Least Load picture of Target Set 1 \(table\)/,
    });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveTextContent(/mp1 192\.168\.10\.1110\.0in band/);
    expect(rows[1]).toHaveTextContent(/13\.0in band/);
    expect(rows[2]).toHaveTextContent(/1\.00excludedweight 0/);
    expect(picture).toHaveTextContent(
      '2 servers within 5 points of the lowest L share new connections by weighted round-robin.',
    );
    // Peer Node Aware is on by default: the picture says what it cannot show.
    expect(picture).toHaveTextContent(/Peer Node Aware \(D = 1\) filters per connection/);
  });

  it('says when the standby serves, and when nobody reports the Target Set', () => {
    const { unmount } = renderWithRouter(
      <TargetSetStatus
        ts={{ ...targetSet1, owner: 'A2' }}
        live={liveOf([liveServer('192.168.10.11'), liveServer('192.168.10.12')])}
        labels={labels}
        leastLoadThreshold={100}
      />,
    );
    expect(screen.getByText(/standby serving \(active IPFE-A1\)/)).toBeInTheDocument();
    expect(screen.getByText(/Below 100 new connections\/s on this Target Set/)).toBeInTheDocument();
    unmount();
    renderWithRouter(
      <TargetSetStatus
        ts={{ ...targetSet1, owner: null }}
        live={null}
        labels={labels}
        leastLoadThreshold={0}
      />,
    );
    expect(screen.getByText(/No IPFE reports this Target Set now/)).toBeInTheDocument();
    expect(screen.getByText('Active bindings').parentElement).toHaveTextContent(
      'Active bindings —/2',
    );
    expect(screen.queryByRole('group', { name: /Least Load picture/ })).toBeNull();
  });

  it('says why nobody serves it, as the agents report, where the Owner reads "none"', () => {
    const reason =
      '192.168.10.100: Target Set 1 is active-active but nothing is announced: only the direct data path serves it';
    renderWithRouter(
      <TargetSetStatus
        ts={{ ...targetSet1, owner: null, notServed: reason }}
        live={null}
        labels={labels}
        leastLoadThreshold={0}
      />,
    );
    expect(screen.getByText(`Not served: ${reason}`)).toHaveClass('state-error');
    expect(screen.queryByText(/No IPFE reports this Target Set now/)).toBeNull();
  });
});
