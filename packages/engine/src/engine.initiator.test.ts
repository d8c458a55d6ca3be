import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import { configDocument } from './testing.ts';

const TSA = '192.0.2.1';
const [X, Y] = ['10.1.0.1', '10.1.0.2'];

function initiatorEngine(initiatorSupport = true) {
  const doc = configDocument({
    targetSets: [{ tsa: TSA, initiatorSupport, servers: [X, Y] }],
  });
  return { engine: new Engine(doc, 0), doc };
}

describe('initiator connections (SPEC §3.6)', () => {
  it("allocates source ports inside the server's Initiator Port Range, unique while in use", () => {
    const { engine, doc } = initiatorEngine();
    const range = doc.config.targetSets[0]?.servers[1]?.initiatorPortRange;
    expect(range).toEqual({ start: 16896, end: 17407 });
    const ports = new Set<number>();
    for (let i = 0; i < 512; i++) {
      const a = engine.allocatePort(TSA, Y);
      if (!a.ok) throw new Error(a.reason);
      expect(a.port).toBeGreaterThanOrEqual(range?.start ?? 0);
      expect(a.port).toBeLessThanOrEqual(range?.end ?? 0);
      ports.add(a.port);
    }
    expect(ports.size).toBe(512);
    expect(engine.allocatePort(TSA, Y)).toEqual({ ok: false, reason: 'ports-exhausted' });
    // Another server's range is its own.
    expect(engine.allocatePort(TSA, X)).toEqual({ ok: true, port: 16384 });
  });

  it('reuses a port after its release', () => {
    const { engine } = initiatorEngine();
    for (let i = 0; i < 512; i++) engine.allocatePort(TSA, X);
    expect(engine.releasePort(TSA, 16400)).toBe(true);
    expect(engine.releasePort(TSA, 16400)).toBe(false);
    expect(engine.allocatePort(TSA, X)).toEqual({ ok: true, port: 16400 });
  });

  it('routes every port of a range to its server', () => {
    const { engine } = initiatorEngine();
    for (let p = 16384; p <= 16895; p++) expect(engine.routeInbound(TSA, p)).toBe(X);
    for (let p = 16896; p <= 17407; p++) expect(engine.routeInbound(TSA, p)).toBe(Y);
    expect(engine.routeInbound(TSA, 17408)).toBeNull();
    expect(engine.routeInbound(TSA, 3868)).toBeNull();
    expect(engine.routeInbound('203.0.113.1', 16384)).toBeNull();
  });

  it('does nothing for a Target Set without initiator support', () => {
    const { engine } = initiatorEngine(false);
    expect(engine.allocatePort(TSA, X)).toEqual({ ok: false, reason: 'initiator-disabled' });
    expect(engine.routeInbound(TSA, 16384)).toBeNull();
    const on = initiatorEngine().engine;
    expect(on.allocatePort(TSA, '10.9.9.9')).toEqual({ ok: false, reason: 'unknown-server' });
    expect(on.allocatePort('203.0.113.1', X)).toEqual({ ok: false, reason: 'unknown-tsa' });
  });

  it('keeps allocations across a configuration that keeps the server, and reports those it drops', () => {
    const { engine } = initiatorEngine();
    const x = engine.allocatePort(TSA, X);
    const y = engine.allocatePort(TSA, Y);
    const result = engine.apply(
      configDocument({
        revision: 2,
        targetSets: [{ tsa: TSA, initiatorSupport: true, servers: [X] }],
      }),
      1,
    );
    expect(result.releasedPorts).toEqual([{ tsa: TSA, server: Y, port: y.ok ? y.port : -1 }]);
    expect(engine.allocatePort(TSA, X)).toEqual({ ok: true, port: (x.ok ? x.port : 0) + 1 });
  });
});
