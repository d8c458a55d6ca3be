import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import type { OpenResult } from './types.ts';
import { configDocument, type TargetSetSpec } from './testing.ts';

const TSA = '192.0.2.1';
const SERVERS = ['10.1.0.1', '10.1.0.2', '10.1.0.3'];

const docOf = (targetSets: TargetSetSpec[], revision = 1) =>
  configDocument({ revision, options: { monitorProtocol: 'disabled' }, targetSets });

/** An engine with 60 connections on Target Set 1 (Hash) and 30 on Target Set 2. */
function busyEngine(slot?: 'A1' | 'B1') {
  const engine = new Engine(
    docOf([
      { tsa: TSA, algorithm: 'hash', servers: SERVERS },
      { tsa: '192.0.2.2', algorithm: 'leastLoad', servers: ['10.1.1.1', '10.1.1.2'] },
    ]),
    0,
    slot ? { slot } : {},
  );
  const open = (tsa: string, i: number) =>
    engine.open(
      { protocol: 'tcp', sourceIp: '172.16.0.1', sourcePort: 2000 + i, tsa, port: 3868 },
      1,
    );
  const ok = (r: OpenResult) => {
    if (!r.ok) throw new Error(r.reason);
    return r;
  };
  const ts1 = Array.from({ length: 60 }, (_, i) => ok(open(TSA, i)));
  const ts2 = Array.from({ length: 30 }, (_, i) => ok(open('192.0.2.2', i)));
  return { engine, ts1, ts2 };
}

const ids = (rs: { id: number }[]) => rs.map((r) => r.id).sort((a, b) => a - b);

describe('applying a new configuration', () => {
  it('keeps every connection whose server survives, on the same server, when weights change and a server is added', () => {
    const { engine, ts1, ts2 } = busyEngine();
    const result = engine.apply(
      docOf(
        [
          {
            tsa: TSA,
            algorithm: 'hash',
            servers: [
              { address: '10.1.0.1', weight: 300 },
              { address: '10.1.0.2', weight: 10 },
              '10.1.0.3',
              '10.1.0.4',
            ],
          },
          { tsa: '192.0.2.2', algorithm: 'leastLoad', servers: ['10.1.1.1', '10.1.1.2'] },
        ],
        2,
      ),
      5,
    );
    expect(result.closed).toEqual([]);
    expect(engine.revision).toBe(2);
    for (const r of [...ts1, ...ts2]) {
      expect(engine.touch(r.id, 6)).toBe(true);
      expect(
        engine.lookup({
          protocol: 'tcp',
          sourceIp: '172.16.0.1',
          sourcePort: 2000 + (ts1.includes(r) ? ts1.indexOf(r) : ts2.indexOf(r)),
          tsa: r.targetSet === 1 ? TSA : '192.0.2.2',
          port: 3868,
        })?.server,
      ).toBe(r.server);
    }
  });

  it('returns the connections of a removed server for closing, and only those', () => {
    const { engine, ts1 } = busyEngine();
    const { closed } = engine.apply(
      docOf([
        { tsa: TSA, algorithm: 'hash', servers: ['10.1.0.1', '10.1.0.3'] },
        { tsa: '192.0.2.2', algorithm: 'leastLoad', servers: ['10.1.1.1', '10.1.1.2'] },
      ]),
      5,
    );
    expect(ids(closed)).toEqual(ids(ts1.filter((r) => r.server === '10.1.0.2')));
    expect(closed.every((c) => c.reason === 'config-removed')).toBe(true);
    expect(engine.size).toBe(90 - closed.length);
  });

  it('returns the connections of a deleted or disabled Target Set', () => {
    const deleted = busyEngine();
    const r1 = deleted.engine.apply(
      docOf([
        { number: 2, tsa: '192.0.2.2', algorithm: 'leastLoad', servers: ['10.1.1.1', '10.1.1.2'] },
      ]),
      5,
    );
    expect(ids(r1.closed)).toEqual(ids(deleted.ts1));

    const disabled = busyEngine();
    const r2 = disabled.engine.apply(
      docOf([
        { tsa: TSA, algorithm: 'hash', servers: SERVERS },
        { tsa: '192.0.2.2', disabled: true, servers: ['10.1.1.1', '10.1.1.2'] },
      ]),
      5,
    );
    expect(ids(r2.closed)).toEqual(ids(disabled.ts2));
    expect(
      disabled.engine.open(
        { protocol: 'tcp', sourceIp: '172.16.0.9', sourcePort: 1, tsa: '192.0.2.2', port: 3868 },
        6,
      ),
    ).toMatchObject({ ok: false, reason: 'target-set-disabled' });
  });

  it('returns the connections of a TSA that moved to another address', () => {
    const { engine, ts1 } = busyEngine();
    const { closed } = engine.apply(
      docOf([
        { tsa: '192.0.2.50', algorithm: 'hash', servers: SERVERS },
        { tsa: '192.0.2.2', algorithm: 'leastLoad', servers: ['10.1.1.1', '10.1.1.2'] },
      ]),
      5,
    );
    expect(ids(closed)).toEqual(ids(ts1));
  });

  it("returns the connections of a TSA that moved off this agent's pair of IPFEs", () => {
    const { engine, ts1 } = busyEngine('A1');
    const { closed } = engine.apply(
      docOf([
        { tsa: TSA, algorithm: 'hash', activeIpfe: 'B1', servers: SERVERS },
        { tsa: '192.0.2.2', algorithm: 'leastLoad', servers: ['10.1.1.1', '10.1.1.2'] },
      ]),
      5,
    );
    expect(ids(closed)).toEqual(ids(ts1));
    expect(
      engine.open(
        { protocol: 'tcp', sourceIp: '172.16.0.9', sourcePort: 1, tsa: TSA, port: 3868 },
        6,
      ),
    ).toMatchObject({ ok: false, reason: 'unknown-tsa' });
  });

  it('keeps connections to a server whose weight drops to 0 (drain), while giving it no new ones', () => {
    const { engine, ts1 } = busyEngine();
    const drained = '10.1.0.2';
    const { closed } = engine.apply(
      docOf([
        {
          tsa: TSA,
          algorithm: 'hash',
          servers: ['10.1.0.1', { address: drained, weight: 0 }, '10.1.0.3'],
        },
      ]),
      5,
    );
    expect(closed.every((c) => c.targetSet === 2)).toBe(true);
    for (const r of ts1) expect(engine.touch(r.id, 6)).toBe(true);
    for (let i = 0; i < 100; i++) {
      const r = engine.open(
        { protocol: 'tcp', sourceIp: '172.16.3.3', sourcePort: 9000 + i, tsa: TSA, port: 3868 },
        7,
      );
      expect(r.ok && r.server).not.toBe(drained);
    }
  });

  it('applies a shorter Delete Age to open connections', () => {
    const { engine, ts1 } = busyEngine();
    engine.apply(
      docOf([{ tsa: TSA, algorithm: 'hash', deleteAgeSeconds: 10, servers: SERVERS }]),
      5,
    );
    expect(ids(engine.expire(1 + 10_000).filter((c) => c.reason === 'idle'))).toEqual(ids(ts1));
  });
});
