import { describe, expect, it } from 'vitest';
import { FlowSharing, type FlowRecord } from './flow-sharing.ts';
import type { SharedFlow } from './mate-link.ts';
import { server, tsa } from './plan-fixtures.ts';

const record = (source: string, server = '10.1.0.1', expiresS = 500): FlowRecord => ({
  tsa: '192.0.2.1',
  protocol: 'tcp',
  source,
  sourcePort: 4000,
  port: 80,
  server,
  expiresS,
});
const told = (r: FlowRecord): SharedFlow => [
  r.tsa,
  r.protocol,
  r.source,
  r.sourcePort,
  r.server,
  Math.max(1, r.expiresS),
  r.port,
];
const p = tsa('192.0.2.1', { deleteAgeSeconds: 600 });

describe('flows shared with the mate', () => {
  it.each([
    { case: 'a new flow is told', at: 0, records: [record('a')], tells: ['a'] },
    { case: 'a known one is not, within 10 s', at: 9_999, records: [record('a')], tells: [] },
    { case: 'every flow again after 10 s', at: 10_000, records: [record('a')], tells: ['a'] },
    {
      case: 'one whose server changed at once',
      at: 1_000,
      records: [record('a', '10.1.0.2')],
      tells: ['a'],
    },
  ])('$case', ({ at, records, tells }) => {
    const sharing = new FlowSharing();
    sharing.toTell(p, [record('a')], 0);
    const flows = at === 0 ? sharing.toTell(p, [record('b')], 0) : sharing.toTell(p, records, at);
    expect(flows.map((f) => f[2])).toEqual(at === 0 ? ['b'] : tells);
  });

  it('tells again every third of Delete Age when shorter, and everything after a mate reset', () => {
    const short = tsa('192.0.2.1', { deleteAgeSeconds: 15 });
    const sharing = new FlowSharing();
    expect(sharing.toTell(short, [record('a', '10.1.0.1', 0)], 0)).toEqual([
      told(record('a', '10.1.0.1', 0)),
    ]);
    expect(sharing.toTell(short, [record('a')], 4_999)).toEqual([]);
    expect(sharing.toTell(short, [record('a')], 5_000)).toHaveLength(1);
    sharing.mateReset();
    expect(sharing.toTell(short, [record('a')], 5_001)).toHaveLength(1);
  });

  it('records the mate’s flows of a TSA taken over: to servers that keep connections, not yet recorded, not its own', () => {
    const sharing = new FlowSharing();
    sharing.fromMate(
      [
        told(record('a', '10.1.0.1', 30)),
        told(record('b', '10.1.0.2', 30)),
        told(record('c', '10.1.0.1', 30)),
        ['192.0.2.9', 'tcp', 'd', 4000, '10.1.0.1', 30, 80],
      ],
      0,
    );
    sharing.own([record('c')]);
    const taken = tsa('192.0.2.1', {
      servers: [server('10.1.0.1'), server('10.1.0.2', { dropsExisting: true })],
    });
    const { records, keys } = sharing.toRecord(taken, 10_500);
    expect(records).toEqual([
      {
        server: '10.1.0.1',
        protocol: 'tcp',
        source: 'a',
        sourcePort: 4000,
        port: 80,
        timeoutS: 20,
      },
    ]);
    sharing.recorded(keys);
    expect(sharing.toRecord(taken, 11_000).records).toEqual([]);
    // Taken over again: recorded again.
    sharing.gained('192.0.2.1');
    expect(sharing.toRecord(taken, 11_000).records).toHaveLength(1);
    expect(sharing.mateFlows).toBe(4);
    sharing.forgetExpired(30_000);
    expect(sharing.mateFlows).toBe(0);
  });

  it('keeps at most its bound of the mate’s flows', () => {
    const sharing = new FlowSharing(2);
    sharing.fromMate([told(record('a')), told(record('b')), told(record('c'))], 0);
    expect(sharing.mateFlows).toBe(2);
    sharing.fromMate([told(record('a', '10.1.0.2'))], 0);
    expect(sharing.mateFlows).toBe(2);
  });
});
