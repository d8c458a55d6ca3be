import { describe, expect, it } from 'vitest';
import {
  announceCommands,
  prefixOf,
  renderFrrConfig,
  routerIdOf,
  sessionsOf,
} from '../src/frr-config.ts';

const bgp = {
  asn: 65001,
  peers: [
    { address: '10.9.0.1', asn: 65000 },
    { address: '2001:db8::1', asn: 65000 },
  ],
  bfdIntervalMs: 50,
  bfdMultiplier: 4,
};

describe("the agent's FRR configuration (issue 18)", () => {
  it('names each router as a BGP neighbour with BFD at the configured timers and announces the TSAs as host routes', () => {
    const { bgpd, bfdd } = renderFrrConfig(bgp, {
      hostname: 'ipfe-a1',
      routerId: '10.9.0.11',
      announced: [prefixOf('192.0.2.1'), prefixOf('2001:db8:1::5')],
    });
    expect(bgpd).toContain('router bgp 65001\n bgp router-id 10.9.0.11');
    expect(bgpd).toContain(
      ' neighbor 10.9.0.1 remote-as 65000\n neighbor 10.9.0.1 bfd profile ipfe',
    );
    expect(bgpd).toContain(
      ' address-family ipv4 unicast\n  network 192.0.2.1/32\n  neighbor 10.9.0.1 activate',
    );
    expect(bgpd).toContain(
      ' address-family ipv6 unicast\n  network 2001:db8:1::5/128\n  neighbor 2001:db8::1 activate',
    );
    // Nothing the router sends is installed.
    expect(bgpd).toContain('  neighbor 10.9.0.1 route-map IPFE-IN in');
    expect(bgpd).toContain('route-map IPFE-IN deny 10');
    expect(bfdd).toContain('  transmit-interval 50\n  receive-interval 50\n  detect-multiplier 4');
    expect(bfdd).not.toContain('router bgp');
  });

  it('moves announcements with network and no network commands, nothing when unchanged', () => {
    expect(announceCommands(65001, new Set(['192.0.2.1/32']), new Set(['192.0.2.1/32']))).toEqual(
      [],
    );
    expect(
      announceCommands(
        65001,
        new Set(['192.0.2.1/32']),
        new Set(['192.0.2.2/32', '2001:db8::5/128']),
      ),
    ).toEqual([
      'router bgp 65001',
      'address-family ipv4 unicast',
      'no network 192.0.2.1/32',
      'network 192.0.2.2/32',
      'exit-address-family',
      'exit',
      'router bgp 65001',
      'address-family ipv6 unicast',
      'network 2001:db8::5/128',
      'exit-address-family',
      'exit',
    ]);
  });

  it("reads each peer's session and BFD state from FRR's JSON, in the configured order", () => {
    const neighbors = {
      '10.9.0.1': { bgpState: 'Established' },
      '10.9.0.2': { bgpState: 'Active' },
    };
    const bfd = [
      { peer: '10.9.0.1', status: 'up' },
      { peer: '10.9.0.2', status: 'down' },
    ];
    expect(sessionsOf(['10.9.0.2', '10.9.0.1', '10.9.0.3'], neighbors, bfd)).toEqual([
      { peer: '10.9.0.2', state: 'connecting', bfd: 'down' },
      { peer: '10.9.0.1', state: 'established', bfd: 'up' },
      { peer: '10.9.0.3', state: 'connecting', bfd: 'unknown' },
    ]);
    expect(sessionsOf(['10.9.0.1'], { '10.9.0.1': { bgpState: 'Idle' } }, null)).toEqual([
      { peer: '10.9.0.1', state: 'down', bfd: 'unknown' },
    ]);
  });

  it('gives an IPv6-only IPFE a router ID of its own: stable, never 0.0.0.0, one per address', () => {
    expect(routerIdOf('10.9.0.11')).toBe('10.9.0.11');
    const group = ['fd00:231:50::11', 'fd00:231:50::12', 'fd00:231:50::13'].map(routerIdOf);
    for (const id of group) {
      expect(id).toMatch(/^\d{1,3}(\.\d{1,3}){3}$/);
      expect(id.split('.').every((octet) => Number(octet) <= 255)).toBe(true);
      expect(id).not.toBe('0.0.0.0');
    }
    expect(new Set(group).size).toBe(3);
    // The same node, however its address is spelt, keeps its ID across restarts.
    expect(routerIdOf('fd00:231:50:0:0:0:0:11')).toBe(group[0]);
    const { bgpd } = renderFrrConfig(bgp, {
      hostname: 'ipfe-a1',
      routerId: routerIdOf('2001:db8::11'),
      announced: [],
    });
    expect(bgpd).toContain(`router bgp 65001\n bgp router-id ${routerIdOf('2001:db8::11')}\n`);
  });
});
