import { describe, expect, it } from 'vitest';
import { filterByPeerNodeGroup, NO_GROUP, PeerNodeGroups } from './peer-node.ts';

describe('PeerNodeGroups', () => {
  const groups = new PeerNodeGroups([
    { name: 'zeta', members: ['10.0.0.0/8'] },
    { name: 'alpha', members: ['10.1.2.3', '192.168.0.0/16'] },
    { name: 'mid', members: ['2001:db8::/32', '::/0'] },
  ]);

  it('finds the first group by name whose member matches the source', () => {
    expect(groups.names).toEqual(['alpha', 'mid', 'zeta']);
    expect(groups.groupOf('10.1.2.3')).toBe(0); // alpha (an address), before zeta (its network)
    expect(groups.groupOf('10.1.2.4')).toBe(2); // zeta
    expect(groups.groupOf('192.168.7.7')).toBe(0);
    expect(groups.groupOf('2001:db8::5')).toBe(1);
  });

  it('matches only members of the same family, and nothing else', () => {
    expect(groups.groupOf('172.16.0.1')).toBe(NO_GROUP); // ::/0 is IPv6 only
    expect(groups.groupOf('not an address')).toBe(NO_GROUP);
    expect(new PeerNodeGroups([]).groupOf('10.0.0.1')).toBe(NO_GROUP);
  });

  it('gives the same answer from its cache', () => {
    expect(groups.groupOf('10.9.9.9')).toBe(2);
    expect(groups.groupOf('10.9.9.9')).toBe(2);
  });
});

describe('filterByPeerNodeGroup', () => {
  const keep = (counts: number[], d: number) => {
    const candidates = Int32Array.from(counts.map((_, i) => i));
    const n = filterByPeerNodeGroup(candidates, counts.length, counts, d);
    return [...candidates.subarray(0, n)];
  };

  it('with D = 0 keeps everyone', () => {
    expect(keep([0, 5, 9], 0)).toEqual([0, 1, 2]);
  });

  it('with D = 1 keeps the servers with the lowest count', () => {
    expect(keep([2, 1, 1, 3], 1)).toEqual([1, 2]);
  });

  it('with D = 2 keeps the servers within one of the lowest', () => {
    expect(keep([2, 1, 1, 3], 2)).toEqual([0, 1, 2]);
  });
});
