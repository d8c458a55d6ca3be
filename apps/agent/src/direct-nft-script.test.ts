import { describe, expect, it } from 'vitest';
import {
  EMPTY_TABLE,
  mapUpdate,
  renderDirectScript,
  withServerIds,
  type DirectScriptInput,
} from './direct-nft-script.ts';
import { plan, server, table, tsa } from './plan-fixtures.ts';

const noAdoption = { mateRecords: false, byTable: false };

function render(p: ReturnType<typeof plan>, parts: Partial<DirectScriptInput> = {}) {
  return renderDirectScript(p, {
    table: 'ipfe_a1',
    device: 'xsi0',
    hashSeed: 7,
    serverIds: withServerIds(new Map(), p),
    adoption: new Map(p.tsas.map((t) => [t.tsa, noAdoption])),
    mateRecords: new Map(),
    previous: EMPTY_TABLE,
    accounting: true,
    ...parts,
  });
}

const lines = (script: string) => script.trimEnd().split('\n');
const having = (script: string, part: string) => lines(script).filter((l) => l.includes(part));

describe('the direct path’s nft script', () => {
  it('numbers servers once, in plan order, and keeps their ids across plans', () => {
    const first = withServerIds(new Map(), plan([tsa('192.0.2.1')]));
    const next = plan([tsa('192.0.2.2', { servers: [server('10.1.0.9'), server('10.1.0.2')] })]);
    expect([...withServerIds(first, next)]).toEqual([
      ['10.1.0.1', 1],
      ['10.1.0.2', 2],
      ['10.1.0.9', 3],
    ]);
  });

  it.each([
    {
      case: 'a new TCP connection by the new-connection table on source address and port',
      part: 'goto new_',
      expected: [
        'add rule netdev ipfe_a1 svc_192_0_2_1 tcp flags & (fin | syn | rst | ack) == syn goto new_192_0_2_1',
      ],
    },
    {
      case: 'the bucket hash with the mates’ seed and the table’s size',
      part: 'jhash',
      expected: [
        'add rule netdev ipfe_a1 new_192_0_2_1 meta mark set jhash ip saddr . tcp sport mod 3 seed 7',
        'add rule netdev ipfe_a1 adopt_192_0_2_1 meta mark set jhash ip saddr . tcp sport mod 3 seed 7',
      ],
    },
    {
      case: 'each server’s packets forwarded unchanged to its address on the XSI interface',
      part: ' fwd ',
      expected: [
        'add rule netdev ipfe_a1 to_192_0_2_1_1 fwd ip to 10.1.0.1 device "xsi0"',
        'add rule netdev ipfe_a1 to_192_0_2_1_2 fwd ip to 10.1.0.2 device "xsi0"',
      ],
    },
    {
      case: 'one bucket map for the TSA’s one table, bucket → server id',
      part: 'add element netdev ipfe_a1 b1_',
      expected: ['add element netdev ipfe_a1 b1_192_0_2_1 { 0 : 1, 1 : 2, 2 : 1 }'],
    },
    {
      case: 'a TCP packet without record reset (nobody adopts it)',
      part: 'svc_192_0_2_1 meta l4proto tcp',
      expected: ['add rule netdev ipfe_a1 svc_192_0_2_1 meta l4proto tcp reject with tcp reset'],
    },
  ])('sends $case', ({ part, expected }) => {
    expect(having(render(plan([tsa('192.0.2.1')])).script, part)).toEqual(expected);
  });

  it.each([
    { adoption: noAdoption, announce: 'arp' as const, adopts: false },
    { adoption: { mateRecords: true, byTable: true }, announce: 'arp' as const, adopts: true },
    { adoption: { mateRecords: false, byTable: true }, announce: 'bgp' as const, adopts: true },
  ])(
    'a packet without record goes by the table when the adoption says so ($announce, $adoption)',
    ({ adoption, announce, adopts }) => {
      const p = plan([tsa('192.0.2.1', { announce })]);
      const { script } = render(p, { adoption: new Map([['192.0.2.1', adoption]]) });
      expect(having(script, 'goto adopt_192_0_2_1')).toHaveLength(adopts ? 1 : 0);
    },
  );

  it('refuses new connections with the reject option and counts them when no server takes them', () => {
    const p = plan([tsa('192.0.2.1', { newConnections: null })], { reject: 'drop' });
    expect(having(render(p).script, 'new_192_0_2_1 ip daddr @refused4')).toEqual([
      'add rule netdev ipfe_a1 new_192_0_2_1 ip daddr @refused4 drop',
    ]);
  });

  it('closes an offline server’s connections at their next packet', () => {
    const p = plan([
      tsa('192.0.2.1', {
        servers: [
          server('10.1.0.1'),
          server('10.1.0.2', { state: 'offline', dropsExisting: true }),
        ],
      }),
    ]);
    const rules = lines(render(p).script).filter((l) =>
      l.startsWith('add rule netdev ipfe_a1 to_192_0_2_1_2 '),
    );
    expect(rules).toEqual([
      'add rule netdev ipfe_a1 to_192_0_2_1_2 delete @rec_192_0_2_1_2 { ip saddr . meta l4proto . th sport . th dport }',
      'add rule netdev ipfe_a1 to_192_0_2_1_2 meta l4proto tcp reject with tcp reset',
      'add rule netdev ipfe_a1 to_192_0_2_1_2 drop',
    ]);
  });

  it('an SCTP association goes by the weight table on its source port alone', () => {
    const p = plan([
      tsa('2001:db8::1', { protocols: ['sctp'], servers: [server('2001:db8:1::1')] }),
    ]);
    expect(having(render(p).script, 'jhash')).toEqual([
      'add rule netdev ipfe_a1 init_2001_db8__1 meta mark set jhash sctp sport mod 3 seed 7',
      'add rule netdev ipfe_a1 sctp_2001_db8__1 meta mark set jhash sctp sport mod 3 seed 7',
    ]);
  });

  it('writes the mate’s records of a TSA it takes over, with their time left', () => {
    const p = plan([tsa('192.0.2.1')]);
    const record = { protocol: 'tcp', sourcePort: 4000, port: 80, timeoutS: 42 };
    const { script } = render(p, {
      adoption: new Map([['192.0.2.1', { mateRecords: true, byTable: true }]]),
      mateRecords: new Map([
        [
          '192.0.2.1',
          [
            { ...record, server: '10.1.0.2', source: '198.18.0.1' },
            { ...record, server: '10.1.0.2', source: '198.18.0.2' },
            { ...record, server: '10.9.9.9', source: '198.18.0.3' },
          ],
        ],
      ]),
    });
    expect(having(script, '@rec_').length).toBeGreaterThan(0);
    expect(having(script, 'add element netdev ipfe_a1 rec_')).toEqual([
      'add element netdev ipfe_a1 rec_192_0_2_1_2 { 198.18.0.1 . tcp . 4000 . 80 timeout 42s, 198.18.0.2 . tcp . 4000 . 80 timeout 42s }',
    ]);
  });

  it('sends of a bucket map only the buckets that changed, and removes what the last plan had', () => {
    const first = render(plan([tsa('192.0.2.1'), tsa('192.0.2.2')]));
    const sent = (script: string) => having(script, 'add element netdev ipfe_a1 b');
    expect(sent(first.script)).toHaveLength(2);
    // The same buckets in a table built anew: nothing to send.
    const anew = table(0, 1, 0);
    const again = tsa('192.0.2.2', {
      newConnections: anew,
      newByWeight: anew,
      existingConnections: anew,
    });
    const same = render(plan([tsa('192.0.2.1'), again]), { previous: first.state });
    expect(sent(same.script)).toEqual([]);
    const changed = render(plan([tsa('192.0.2.1', { newConnections: table(1, 1, 0) })]), {
      previous: first.state,
    });
    // Its new-connection table changed in bucket 0 (b1); its weight table is a map of its own
    // now (b2), sent whole.
    expect(sent(changed.script)).toEqual([
      'add element netdev ipfe_a1 b1_192_0_2_1 { 0 : 2 }',
      'add element netdev ipfe_a1 b2_192_0_2_1 { 0 : 1, 1 : 2, 2 : 1 }',
    ]);
    expect(having(changed.script, 'element netdev ipfe_a1 b1_')).toEqual([
      'delete element netdev ipfe_a1 b1_192_0_2_1 { 0 }',
      'add element netdev ipfe_a1 b1_192_0_2_1 { 0 : 2 }',
    ]);
    expect(having(changed.script, 'delete ')).toEqual(
      expect.arrayContaining([
        'delete map netdev ipfe_a1 b1_192_0_2_2',
        'delete set netdev ipfe_a1 rec_192_0_2_2_1',
        'delete chain netdev ipfe_a1 svc_192_0_2_2',
      ]),
    );
  });
});

describe('a bucket map’s update', () => {
  const m = 'netdev ipfe_a1 b1_x';
  it.each([
    {
      case: 'nothing held yet: every bucket, the map flushed first',
      before: undefined,
      after: ['1', '2', '1'],
      expected: [`flush map ${m}`, `add element ${m} { 0 : 1, 1 : 2, 2 : 1 }`],
    },
    {
      case: 'the same buckets: nothing',
      before: ['1', '2', '1'],
      after: ['1', '2', '1'],
      expected: [],
    },
    {
      case: 'two buckets moved: those two, deleted then added',
      before: ['1', '2', '1', '2'],
      after: ['1', '3', '1', '3'],
      expected: [`delete element ${m} { 1, 3 }`, `add element ${m} { 1 : 3, 3 : 3 }`],
    },
    {
      case: 'a table of another size: every bucket again',
      before: ['1', '2'],
      after: ['1', '2', '1'],
      expected: [`flush map ${m}`, `add element ${m} { 0 : 1, 1 : 2, 2 : 1 }`],
    },
  ])('$case', ({ before, after, expected }) => {
    expect(mapUpdate(m, before, after)).toEqual(expected);
  });
});
