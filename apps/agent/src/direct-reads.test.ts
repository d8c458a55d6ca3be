import { describe, expect, it } from 'vitest';
import { withServerIds } from './direct-nft-script.ts';
import { activeOf, countersOf, keyOf, recordsOf } from './direct-reads.ts';
import { plan, server, tsa } from './plan-fixtures.ts';

// Behind the secondary TSA the server 10.1.0.2 is reached at 10.2.0.2: counted as 10.1.0.2.
const p = plan([
  tsa('192.0.2.1', { targetSet: 1 }),
  tsa('2001:db8::1', {
    targetSet: 1,
    secondary: true,
    servers: [server('10.1.0.2', { address: '2001:db8:2::2' })],
  }),
]);
const ids = withServerIds(new Map(), p);

describe('the direct path’s reads', () => {
  it.each([
    { val: '2001:db8:0::1', key: '2001:db8::1' },
    { val: { concat: ['192.0.2.1', 2] }, key: '192.0.2.1|2' },
    { val: 7, key: '7' },
  ])('keys a listed element $val as $key', ({ val, key }) => {
    expect(keyOf(val)).toBe(key);
  });

  it('reads opened per server by the plan’s identity, refused per Target Set, bytes and packets per TSA, packets per port', () => {
    const listed = new Map([
      ['in4', [{ val: '192.0.2.1', counter: { packets: 9, bytes: 900 } }]],
      ['refused4', [{ val: '192.0.2.1', counter: { packets: 2, bytes: 0 } }]],
      ['refused6', [{ val: '2001:db8::1', counter: { packets: 3, bytes: 0 } }]],
      [
        'opened4',
        [
          { val: { concat: ['192.0.2.1', 1] }, counter: { packets: 5, bytes: 0 } },
          { val: { concat: ['192.0.2.1', 2] }, counter: { packets: 4, bytes: 0 } },
        ],
      ],
      ['opened6', [{ val: { concat: ['2001:db8::1', 3] }, counter: { packets: 1, bytes: 0 } }]],
      ['port_pkts', [{ val: 80, counter: { packets: 1200, bytes: 0 } }]],
      ['port_throttled', [{ val: 80, counter: { packets: 30, bytes: 0 } }]],
    ]);
    const counters = countersOf(p, ids, listed);
    expect([...counters.opened.entries()]).toEqual([
      ['192.0.2.1', '10.1.0.1', 5],
      ['192.0.2.1', '10.1.0.2', 4],
      ['2001:db8::1', '10.1.0.2', 1],
    ]);
    expect([...counters.refused]).toEqual([[1, 5]]);
    expect([...counters.bytesIn]).toEqual([['192.0.2.1', 900]]);
    expect([...counters.packetsIn]).toEqual([['192.0.2.1', 9]]);
    // Per forwarded port: every packet, and those dropped above the rate limit.
    expect([...counters.ports]).toEqual([[80, { packets: 1200, dropped: 30 }]]);
  });

  it('reads the records of each server’s set, and counts them open by the plan’s identity', () => {
    const element = (source: string, protocol = 'tcp') => ({
      val: { concat: [source, protocol, 4000, 80] },
      expires: 42,
    });
    const listed = new Map([
      ['rec_192_0_2_1_1', [element('198.18.0.1'), element('198.18.0.2', 'udp')]],
      ['rec_2001_db8__1_3', [element('2001:db8:9::1', 'sctp')]],
    ]);
    const records = recordsOf(p, ids, listed);
    expect(records.get('192.0.2.1')).toEqual([
      {
        tsa: '192.0.2.1',
        server: '10.1.0.1',
        protocol: 'tcp',
        source: '198.18.0.1',
        sourcePort: 4000,
        port: 80,
        expiresS: 42,
      },
    ]);
    expect(records.get('2001:db8::1')?.map((r) => r.server)).toEqual(['2001:db8:2::2']);
    const { active, connections } = activeOf(p, records);
    expect([...active.entries()]).toEqual([
      ['192.0.2.1', '10.1.0.1', 1],
      ['192.0.2.1', '10.1.0.2', 0],
      ['2001:db8::1', '10.1.0.2', 1],
    ]);
    expect(connections).toBe(2);
  });
});
