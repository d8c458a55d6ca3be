import { describe, expect, it } from 'vitest';
import { EMPTY_TABLE, renderDirectScript, withServerIds } from './direct-nft-script.ts';
import { renderKernelScript } from './kernel-nft-script.ts';
import { MEASURED_SETS, measuredOf } from './nft-measurements.ts';
import type { NftSetElement } from './nft.ts';
import { plan, server, tsa } from './plan-fixtures.ts';

/** A TCP TSA with two servers, an SCTP-only one, and an IPv6 TSA that carries both. */
const mixed = plan([
  tsa('192.0.2.1', { targetSet: 1 }),
  tsa('192.0.2.2', { targetSet: 2, protocols: ['sctp'], servers: [server('10.1.0.3')] }),
  tsa('2001:db8::1', {
    targetSet: 3,
    protocols: ['tcp', 'sctp'],
    servers: [server('2001:db8:1::1')],
  }),
]);

const kernel = (accounting: boolean, p = mixed) =>
  renderKernelScript(p, { table: 'ipfe_a1', hashSeed: 7, accounting }).trimEnd().split('\n');

const direct = (accounting: boolean, p = mixed, previous = EMPTY_TABLE) =>
  renderDirectScript(p, {
    table: 'ipfe_a1',
    device: 'xsi0',
    hashSeed: 7,
    serverIds: withServerIds(new Map(), p),
    adoption: new Map(p.tsas.map((t) => [t.tsa, { mateRecords: false, byTable: false }])),
    mateRecords: new Map(),
    previous,
    accounting,
  });

const having = (lines: string[], part: string) => lines.filter((l) => l.includes(part));

describe('the kernel path’s measurements', () => {
  it.each([
    {
      case: 'every packet of a client to a TSA as bytes received, SCTP ones apart, before DNAT',
      part: 'measure_in ct direction original ip',
      expected: [
        'add rule inet ipfe_a1 measure_in ct direction original ip daddr @rx4',
        'add rule inet ipfe_a1 measure_in ct direction original ip6 daddr @rx6',
      ],
    },
    {
      case: 'TCP to a TSA whose Target Set carries none, and every SCTP packet, as unexpected',
      part: '@u',
      expected: [
        'add rule inet ipfe_a1 measure_in ct direction original meta l4proto tcp ip daddr @notcp4 ip daddr @utcp4',
        'add rule inet ipfe_a1 measure_in ip daddr . tcp dport @tcpports4 ct state new tcp flags & (fin | syn | rst | ack) != syn ip daddr @utcp4',
        'add rule inet ipfe_a1 measure_in meta l4proto sctp ip daddr @usctp4',
        'add rule inet ipfe_a1 measure_in ct direction original meta l4proto tcp ip6 daddr @notcp6 ip6 daddr @utcp6',
        'add rule inet ipfe_a1 measure_in ip6 daddr . tcp dport @tcpports6 ct state new tcp flags & (fin | syn | rst | ack) != syn ip6 daddr @utcp6',
        'add rule inet ipfe_a1 measure_in meta l4proto sctp ip6 daddr @usctp6',
      ],
    },
    {
      case: 'the SCTP bytes of clients apart',
      part: 'measure_in ct direction original meta l4proto sctp',
      expected: [
        'add rule inet ipfe_a1 measure_in ct direction original meta l4proto sctp ip daddr @rxsctp4',
        'add rule inet ipfe_a1 measure_in ct direction original meta l4proto sctp ip6 daddr @rxsctp6',
      ],
    },
    {
      case: 'the bytes of forwarded packets per TSA and the server DNAT chose',
      part: 'measure_out ct',
      expected: [
        'add rule inet ipfe_a1 measure_out ct direction original ct original ip daddr . ip daddr @tx4',
        'add rule inet ipfe_a1 measure_out ct direction original ct original ip6 daddr . ip6 daddr @tx6',
      ],
    },
    {
      case: 'an element per TSA and server where packets go',
      part: 'add element inet ipfe_a1 tx',
      expected: [
        'add element inet ipfe_a1 tx4 { 192.0.2.1 . 10.1.0.1, 192.0.2.1 . 10.1.0.2 }',
        'add element inet ipfe_a1 tx4 { 192.0.2.2 . 10.1.0.3 }',
        'add element inet ipfe_a1 tx6 { 2001:db8::1 . 2001:db8:1::1 }',
      ],
    },
    {
      case: 'the TCP ports and the TSAs without TCP, selected anew at each render',
      part: 'element inet ipfe_a1 notcp4',
      expected: ['add element inet ipfe_a1 notcp4 { 192.0.2.2 }'],
    },
  ])('counts $case', ({ part, expected }) => {
    expect(having(kernel(true), part)).toEqual(expected);
  });

  it('keeps its counted sets while Accounting is off, and counts nothing', () => {
    const off = kernel(false);
    expect(having(off, 'add rule inet ipfe_a1 measure')).toEqual([]);
    expect(having(off, 'add set inet ipfe_a1 rx4')).toEqual([
      'add set inet ipfe_a1 rx4 { type ipv4_addr; counter; }',
    ]);
    expect(having(off, 'add element inet ipfe_a1 rx4')).toEqual(
      having(kernel(true), 'add element inet ipfe_a1 rx4'),
    );
    // The TSAs' own counters go on: Imbalance Detection Throughput Minimum reads their packets.
    expect(having(off, 'add rule inet ipfe_a1 traffic')).toEqual(
      having(kernel(true), 'add rule inet ipfe_a1 traffic'),
    );
    expect(having(off, 'add rule inet ipfe_a1 traffic')).toHaveLength(4);
  });

  it('counts what arrives before the rate limit drops any of it', () => {
    expect(having(kernel(true), 'hook prerouting priority mangle -')).toEqual([
      'add chain inet ipfe_a1 throttle { type filter hook prerouting priority mangle - 10; policy accept; }',
      'add chain inet ipfe_a1 measure_in { type filter hook prerouting priority mangle - 20; policy accept; }',
    ]);
  });

  it('declares no set of a family the plan does not have', () => {
    const v4 = kernel(true, plan([tsa('192.0.2.1')]));
    expect(having(v4, '6 {')).toEqual([]);
    expect(having(v4, 'flush set inet ipfe_a1 tcpports4')).toHaveLength(1);
  });
});

describe('the direct path’s measurements', () => {
  const lines = (accounting: boolean) => direct(accounting).script.trimEnd().split('\n');

  it.each([
    {
      case: 'bytes to a server in its chain, once the mark names it, before the packet leaves',
      chain: 'to_192_0_2_1_1 ',
      expected: [
        'add rule netdev ipfe_a1 to_192_0_2_1_1 update @rec_192_0_2_1_1 { ip saddr . meta l4proto . th sport . th dport timeout 600s }',
        'add rule netdev ipfe_a1 to_192_0_2_1_1 meta mark set 1',
        'add rule netdev ipfe_a1 to_192_0_2_1_1 tcp flags & (syn | ack) == syn ip daddr . meta mark @opened4',
        'add rule netdev ipfe_a1 to_192_0_2_1_1 sctp chunk init exists ip daddr . meta mark @opened4',
        'add rule netdev ipfe_a1 to_192_0_2_1_1 ip daddr . meta mark @tx4',
        'add rule netdev ipfe_a1 to_192_0_2_1_1 fwd ip to 10.1.0.1 device "xsi0"',
      ],
    },
    {
      case: 'a TCP packet of no known flow as unexpected, where it is reset',
      chain: 'svc_192_0_2_1 ',
      expected: [
        'add rule netdev ipfe_a1 svc_192_0_2_1 th dport @port_pkts',
        'add rule netdev ipfe_a1 svc_192_0_2_1 th dport 80 limit name "lim_80_500000_50000" th dport @port_throttled drop',
        'add rule netdev ipfe_a1 svc_192_0_2_1 ip daddr @in4',
        'add rule netdev ipfe_a1 svc_192_0_2_1 tcp flags & (fin | syn | rst | ack) == syn goto new_192_0_2_1',
        'add rule netdev ipfe_a1 svc_192_0_2_1 ip saddr . meta l4proto . th sport . th dport @rec_192_0_2_1_1 goto to_192_0_2_1_1',
        'add rule netdev ipfe_a1 svc_192_0_2_1 ip saddr . meta l4proto . th sport . th dport @rec_192_0_2_1_2 goto to_192_0_2_1_2',
        'add rule netdev ipfe_a1 svc_192_0_2_1 ip daddr @utcp4',
        'add rule netdev ipfe_a1 svc_192_0_2_1 meta l4proto tcp reject with tcp reset',
      ],
    },
    {
      case: 'an SCTP packet of no known association as unexpected, where it is dropped',
      chain: 'sctp_2001_db8__1 ',
      expected: [
        'add rule netdev ipfe_a1 sctp_2001_db8__1 sctp chunk init exists goto init_2001_db8__1',
        'add rule netdev ipfe_a1 sctp_2001_db8__1 sctp chunk init exists ip6 daddr @refused6 drop',
        'add rule netdev ipfe_a1 sctp_2001_db8__1 meta mark set jhash sctp sport mod 3 seed 7',
        'add rule netdev ipfe_a1 sctp_2001_db8__1 meta mark set meta mark map @b1_2001_db8__1',
        'add rule netdev ipfe_a1 sctp_2001_db8__1 meta mark vmap { 4 : goto to_2001_db8__1_4 }',
        'add rule netdev ipfe_a1 sctp_2001_db8__1 ip6 daddr @usctp6',
        'add rule netdev ipfe_a1 sctp_2001_db8__1 drop',
      ],
    },
    {
      case: 'what arrives, before the chain that forwards: bytes, SCTP bytes, protocols not carried',
      chain: 'measure ',
      expected: [
        'add rule netdev ipfe_a1 measure ip daddr @rx4',
        'add rule netdev ipfe_a1 measure meta l4proto sctp ip daddr @rxsctp4',
        'add rule netdev ipfe_a1 measure meta l4proto tcp ip daddr @notcp4 ip daddr @utcp4',
        'add rule netdev ipfe_a1 measure meta l4proto sctp ip daddr @nosctp4 ip daddr @usctp4',
        'add rule netdev ipfe_a1 measure ip6 daddr @rx6',
        'add rule netdev ipfe_a1 measure meta l4proto sctp ip6 daddr @rxsctp6',
        'add rule netdev ipfe_a1 measure meta l4proto tcp ip6 daddr @notcp6 ip6 daddr @utcp6',
        'add rule netdev ipfe_a1 measure meta l4proto sctp ip6 daddr @nosctp6 ip6 daddr @usctp6',
      ],
    },
  ])('counts $case', ({ chain, expected }) => {
    expect(having(lines(true), `add rule netdev ipfe_a1 ${chain}`)).toEqual(expected);
  });

  it('hooks its chain of what arrives just before the one that forwards', () => {
    expect(having(lines(true), 'hook ingress')).toEqual([
      'add chain netdev ipfe_a1 ingress { type filter hook ingress device "xsi0" priority -150; policy accept; }',
      'add chain netdev ipfe_a1 measure { type filter hook ingress device "xsi0" priority -160; policy accept; }',
    ]);
  });

  it('keys bytes to a server by its id, as `opened` does', () => {
    expect(having(lines(true), 'add element netdev ipfe_a1 tx')).toEqual([
      'add element netdev ipfe_a1 tx4 { 192.0.2.1 . 1, 192.0.2.1 . 2 }',
      'add element netdev ipfe_a1 tx4 { 192.0.2.2 . 3 }',
      'add element netdev ipfe_a1 tx6 { 2001:db8::1 . 4 }',
    ]);
  });

  it('while Accounting is off counts nothing, and keeps its sets and their counts', () => {
    const on = direct(true);
    const off = direct(false, mixed, on.state);
    const offLines = off.script.trimEnd().split('\n');
    for (const set of ['@rx', '@tx', '@utcp', '@usctp'])
      expect(having(offLines, `add rule netdev ipfe_a1`).filter((l) => l.includes(set))).toEqual(
        [],
      );
    expect(having(offLines, 'delete set')).toEqual([]);
    expect(having(offLines, 'delete chain')).toEqual([]);
    for (const set of MEASURED_SETS) expect(off.state.sets.has(set)).toBe(true);
    // Connections and each TSA's packets are still counted: the Status page and the alarms read
    // them (Imbalance Detection Throughput Minimum, the rate limit).
    for (const set of ['@opened', '@in4', '@in6', '@port_pkts']) {
      const rules = (l: string[]) => having(l, 'add rule').filter((r) => r.includes(set));
      expect(rules(offLines)).toEqual(rules(lines(true)));
      expect(rules(offLines).length).toBeGreaterThan(0);
    }
  });
});

describe('the measurements read back', () => {
  const element = (val: unknown, packets: number, bytes: number): NftSetElement => ({
    val,
    counter: { packets, bytes },
  });

  it('gives bytes and packets per TSA and bytes per planned server, as listed', () => {
    const p = plan([
      tsa('192.0.2.1', { servers: [server('10.1.0.1'), server('10.1.0.2')] }),
      // A secondary TSA: the server's packets go to its second address.
      tsa('2001:db8::1', { servers: [server('10.1.0.1', { address: '2001:db8:1::1' })] }),
    ]);
    const listed = new Map<string, NftSetElement[]>([
      ['rx4', [element('192.0.2.1', 10, 1000)]],
      ['rx6', [element('2001:db8::1', 2, 300)]],
      ['rxsctp4', [element('192.0.2.1', 1, 100)]],
      ['utcp4', [element('192.0.2.1', 3, 120)]],
      ['usctp6', [element('2001:db8::1', 4, 200)]],
      [
        'tx4',
        [
          element({ concat: ['192.0.2.1', '10.1.0.1'] }, 5, 500),
          element({ concat: ['192.0.2.1', '10.1.0.2'] }, 4, 400),
        ],
      ],
      // nft lists IPv6 addresses in their short form; the plan may spell them otherwise.
      ['tx6', [element({ concat: ['2001:db8::1', '2001:db8:1::1'] }, 1, 150)]],
    ]);
    const measured = measuredOf(p, listed, (s) => s.address);
    expect([...measured.rxBytes!]).toEqual([
      ['192.0.2.1', 1000],
      ['2001:db8::1', 300],
    ]);
    expect([...measured.rxSctpBytes!]).toEqual([['192.0.2.1', 100]]);
    expect([...measured.unexpectedTcp!]).toEqual([['192.0.2.1', 3]]);
    expect([...measured.unexpectedSctp!]).toEqual([['2001:db8::1', 4]]);
    expect([...measured.txBytes!.entries()]).toEqual([
      ['192.0.2.1', '10.1.0.1', 500],
      ['192.0.2.1', '10.1.0.2', 400],
      ['2001:db8::1', '10.1.0.1', 150],
    ]);
  });

  it('keys the direct path’s servers by their id', () => {
    const p = plan([tsa('192.0.2.1')]);
    const listed = new Map([['tx4', [element({ concat: ['192.0.2.1', 2] }, 1, 64)]]]);
    const ids = new Map([
      ['10.1.0.1', 1],
      ['10.1.0.2', 2],
    ]);
    const measured = measuredOf(p, listed, (s) => ids.get(s.address)!);
    expect([...measured.txBytes!.entries()]).toEqual([['192.0.2.1', '10.1.0.2', 64]]);
  });
});
