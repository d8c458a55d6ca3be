import { describe, expect, it } from 'vitest';
import {
  conntrackFlows,
  forwardedKeys,
  openedOf,
  pairsRemoved,
  renderKernelScript,
  serversByAddress,
  serversDropped,
} from './kernel-nft-script.ts';
import { plan, server, table, tsa } from './plan-fixtures.ts';

const render = (p: ReturnType<typeof plan>) =>
  renderKernelScript(p, { table: 'ipfe_a1', hashSeed: 7, accounting: true }).trimEnd().split('\n');

describe('the kernel path’s nft script', () => {
  it.each([
    {
      case: 'DNATs a new connection through the bucket map, hashed with the mates’ seed',
      p: plan([tsa('192.0.2.1', { newConnections: table(0, 1, 1) })]),
      part: 'dnat ip to',
      expected: [
        'add rule inet ipfe_a1 to_servers ip daddr 192.0.2.1 tcp dport { 80 } ct state new counter dnat ip to jhash ip saddr . tcp sport mod 3 seed 7 map { 0 : 10.1.0.1, 1 : 10.1.0.2, 2 : 10.1.0.2 }',
      ],
    },
    {
      case: 'refuses and counts per Target Set when no server takes new connections',
      p: plan([tsa('192.0.2.1', { targetSet: 4, newConnections: null })], { reject: 'drop' }),
      part: 'refused_4',
      expected: [
        'add counter inet ipfe_a1 refused_4',
        'add rule inet ipfe_a1 to_servers ip daddr 192.0.2.1 tcp dport { 80 } ct state new counter name "refused_4" drop',
      ],
    },
    {
      case: 'sets Delete Age as a ct timeout policy',
      p: plan([tsa('2001:db8::1', { deleteAgeSeconds: 90 })]),
      part: 'age_90_6',
      expected: [
        'add ct timeout inet ipfe_a1 age_90_6 { protocol tcp; l3proto ip6; policy = { established: 90 }; }',
        'add rule inet ipfe_a1 delete_age ip6 daddr 2001:db8::1 tcp dport { 80 } ct timeout set "age_90_6"',
      ],
    },
    {
      case: 'SNATs replies to the TSA',
      p: plan([tsa('192.0.2.1')]),
      part: 'snat',
      expected: [
        'add rule inet ipfe_a1 from_servers ct status dnat ct original ip daddr 192.0.2.1 snat ip to 192.0.2.1',
      ],
    },
    {
      case: 'counts each server’s new connections by TSA and where DNAT sent them, before the SNAT that ends the chain',
      p: plan([tsa('192.0.2.1'), tsa('2001:db8::1', { servers: [server('2001:db8:1::1')] })]),
      part: 'from_servers',
      expected: [
        'add chain inet ipfe_a1 from_servers { type nat hook postrouting priority srcnat; policy accept; }',
        'flush chain inet ipfe_a1 from_servers',
        'add rule inet ipfe_a1 from_servers ct status dnat ct original ip daddr . ip daddr @opened4',
        'add rule inet ipfe_a1 from_servers ct status dnat ct original ip6 daddr . ip6 daddr @opened6',
        'add rule inet ipfe_a1 from_servers ct status dnat ct original ip daddr 192.0.2.1 snat ip to 192.0.2.1',
        'add rule inet ipfe_a1 from_servers ct status dnat ct original ip6 daddr 2001:db8::1 snat ip6 to 2001:db8::1',
      ],
    },
    {
      case: 'declares a counted (TSA, server) element for every server of a TSA, once',
      p: plan([tsa('192.0.2.1', { ports: [80] }), tsa('192.0.2.1', { targetSet: 2, ports: [81] })]),
      part: 'opened4 {',
      expected: [
        'add set inet ipfe_a1 opened4 { type ipv4_addr . ipv4_addr; counter; }',
        'add element inet ipfe_a1 opened4 { 192.0.2.1 . 10.1.0.1, 192.0.2.1 . 10.1.0.2 }',
      ],
    },
    {
      case: 'renders nothing for an SCTP-only TSA (the path forwards TCP)',
      p: plan([tsa('192.0.2.1', { protocols: ['sctp'] })]),
      part: 'daddr 192.0.2.1',
      expected: [],
    },
  ])('$case', ({ p, part, expected }) => {
    expect(render(p).filter((l) => l.includes(part))).toEqual(expected);
  });

  it('reads each planned server’s new connections from the counted sets, 0 before any', () => {
    const p = plan([
      tsa('192.0.2.1', { servers: [server('10.1.0.1', { server: 's1' }), server('10.1.0.2')] }),
      tsa('2001:db8::1', { servers: [server('2001:db8:1::1')] }),
      tsa('192.0.2.9', { protocols: ['sctp'] }),
    ]);
    const listed = new Map([
      [
        'opened4',
        [
          { val: { concat: ['192.0.2.1', '10.1.0.1'] }, counter: { packets: 7, bytes: 420 } },
          { val: { concat: ['192.0.2.7', '10.1.0.1'] }, counter: { packets: 3, bytes: 180 } },
        ],
      ],
      [
        'opened6',
        [
          {
            val: { concat: ['2001:db8:0::1', '2001:db8:1::1'] },
            counter: { packets: 2, bytes: 160 },
          },
        ],
      ],
    ]);
    expect([...openedOf(p, listed).entries()]).toEqual([
      ['192.0.2.1', 's1', 7],
      ['192.0.2.1', '10.1.0.2', 0],
      ['2001:db8::1', '2001:db8:1::1', 2],
    ]);
  });

  it.each([
    { before: null, after: ['T|a'], removed: [] },
    { before: ['T|a', 'T|b'], after: ['T|a'], removed: [{ tsa: 'T', address: 'b' }] },
    { before: ['T|a'], after: ['U|a'], removed: [{ tsa: 'T', address: 'a' }] },
    { before: ['T|a'], after: ['T|a', 'T|b'], removed: [] },
  ])('a new configuration purges the pairs it dropped: $before → $after', (row) => {
    expect(pairsRemoved(row.before && new Set(row.before), new Set(row.after))).toEqual(
      row.removed,
    );
  });

  it('the pairs are the plan’s, where packets go behind each TSA', () => {
    const p = plan([], {
      forwarded: [
        { tsa: '192.0.2.1', address: '10.1.0.1' },
        { tsa: '192.0.2.101', address: '10.2.0.1' },
      ],
    });
    expect([...forwardedKeys(p)]).toEqual(['192.0.2.1|10.1.0.1', '192.0.2.101|10.2.0.1']);
  });

  it.each([
    { before: undefined, state: 'offline' as const, dropped: false },
    { before: 'normal', state: 'offline' as const, dropped: true },
    { before: 'normal', state: 'initializing' as const, dropped: true },
    { before: 'offline', state: 'offline' as const, dropped: false },
    { before: 'normal', state: 'stressed' as const, dropped: false },
  ])('a server going $before → $state loses its connections: $dropped', (row) => {
    const states = new Map(row.before ? [['10.1.0.1', row.before]] : []);
    const dropsExisting = row.state === 'offline' || row.state === 'initializing';
    const p = plan([
      tsa('192.0.2.1', { servers: [server('10.1.0.1', { state: row.state, dropsExisting })] }),
    ]);
    expect(serversDropped(states, p)).toEqual(
      row.dropped ? [{ address: '10.1.0.1', state: row.state }] : [],
    );
    expect(states.get('10.1.0.1')).toBe(row.state);
  });

  it('counts conntrack’s open flows by the plan’s server, behind a secondary TSA too', () => {
    const p = plan([
      tsa('192.0.2.101', { servers: [server('10.1.0.1', { address: '10.2.0.1' })] }),
    ]);
    const listing = [
      'tcp 6 431999 ESTABLISHED src=198.18.0.1 dst=192.0.2.101 sport=4000 dport=80 src=10.2.0.1 dst=198.18.0.1 sport=80 dport=4000',
      'tcp 6 119 TIME_WAIT src=198.18.0.2 dst=192.0.2.101 sport=4001 dport=80 src=10.2.0.1 dst=198.18.0.2 sport=80 dport=4001',
      'tcp 6 10 CLOSE src=198.18.0.3 dst=192.0.2.101 sport=4002 dport=80 src=10.2.0.1 dst=198.18.0.3 sport=80 dport=4002',
      'tcp 6 431999 ESTABLISHED src=198.18.0.4 dst=192.0.2.101 sport=4003 dport=80 src=10.9.9.9 dst=198.18.0.4 sport=80 dport=4003',
    ].join('\n');
    expect(conntrackFlows('192.0.2.101', listing, serversByAddress(p, '192.0.2.101'))).toEqual([
      { server: '10.1.0.1', flow: '198.18.0.1:4000' },
      { server: '10.9.9.9', flow: '198.18.0.4:4003' },
    ]);
  });
});
