import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import { NO_SERVER, type MaglevTable } from './maglev.ts';
import { configDocument, type TargetSetSpec } from './testing.ts';

const SERVERS = ['10.1.0.1', '10.1.0.2', '10.1.0.3'];
const report = { mps: 0, mpsCapacity: 1000, connections: 0, connectionCapacity: 1000 };

const engineOf = (targetSets: TargetSetSpec[], options = {}) =>
  new Engine(
    configDocument({ options: { monitorProtocol: 'heartbeat', ...options }, targetSets }),
    0,
  );

/** Entries per server position. */
function shares(table: MaglevTable | null, servers: number): number[] {
  const counts = new Array<number>(servers).fill(0);
  for (const e of table?.entries ?? []) if (e !== NO_SERVER) counts[e] = (counts[e] ?? 0) + 1;
  return counts;
}

describe('the forwarding plan kernel data paths render', () => {
  it('lists each served TSA with its ports, protocols, Delete Age and servers; none for a TSA it does not serve or a disabled Target Set', () => {
    const engine = engineOf(
      [
        { tsa: '192.0.2.1', protocols: 'both', deleteAgeSeconds: 90, servers: SERVERS },
        { tsa: '192.0.2.2', protocols: 'sctp', servers: ['10.1.1.1'] },
        { tsa: '192.0.2.3', disabled: true, servers: ['10.1.2.1'] },
      ],
      { forwardedPorts: [3868, 5868], tcpRejectOption: 'drop' },
    );
    for (const s of [...SERVERS, '10.1.1.1']) engine.heartbeat(s, report, 0);
    const plan = engine.plan(['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.9'], 0);
    expect(plan.reject).toBe('drop');
    expect(plan.tsas.map((t) => [t.tsa, t.targetSet, t.protocols, t.ports])).toEqual([
      ['192.0.2.1', 1, ['tcp', 'sctp'], [3868, 5868]],
      ['192.0.2.2', 2, ['sctp'], [3868, 5868]],
    ]);
    expect(plan.tsas[0]?.deleteAgeSeconds).toBe(90);
    expect(plan.tsas[0]?.servers.map((s) => [s.address, s.takesNew, s.dropsExisting])).toEqual([
      ['10.1.0.1', true, false],
      ['10.1.0.2', true, false],
      ['10.1.0.3', true, false],
    ]);
  });

  it('Hash: buckets follow the weights, and a server that takes no new connections keeps its existing ones in the stateless table', () => {
    const engine = engineOf([
      {
        algorithm: 'hash',
        servers: [
          { address: SERVERS[0]!, weight: 1 },
          { address: SERVERS[1]!, weight: 2 },
          { address: SERVERS[2]!, weight: 1 },
        ],
      },
    ]);
    for (const s of SERVERS) engine.heartbeat(s, report, 0);
    const [before] = engine.plan(['192.0.2.1'], 0).tsas;
    const n = before!.newConnections!.size;
    expect(shares(before!.newConnections, 3).map((c) => Math.round((c / n) * 100))).toEqual([
      25, 50, 25,
    ]);
    expect(before!.existingConnections).toEqual(before!.newConnections);

    engine.heartbeat(SERVERS[1]!, { ...report, state: 'overloaded' }, 100);
    const [after] = engine.plan(['192.0.2.1'], 100).tsas;
    expect(after!.servers[1]?.takesNew).toBe(false);
    expect(shares(after!.newConnections, 3)[1]).toBe(0);
    expect(after!.existingConnections).toEqual(before!.existingConnections);
  });

  it('an offline server drops its connections and leaves both tables; with nobody left, new connections are refused', () => {
    const engine = engineOf([{ algorithm: 'hash', servers: [SERVERS[0]!] }]);
    engine.heartbeat(SERVERS[0]!, report, 0);
    expect(engine.plan(['192.0.2.1'], 0).tsas[0]?.newConnections).not.toBeNull();
    engine.serverLost(SERVERS[0]!, 10);
    const [tsa] = engine.plan(['192.0.2.1'], 10).tsas;
    expect(tsa?.servers[0]).toMatchObject({
      state: 'offline',
      takesNew: false,
      dropsExisting: true,
    });
    expect(tsa?.newConnections).toBeNull();
    expect(tsa?.existingConnections).toBeNull();
    expect(tsa?.newByWeight).toBeNull();
  });

  it('stressed servers take new connections only when no other server can', () => {
    const engine = engineOf([{ servers: SERVERS.slice(0, 2) }]);
    engine.heartbeat(SERVERS[1]!, report, 0);
    engine.heartbeat(SERVERS[0]!, { ...report, state: 'stressed' }, 0);
    expect(engine.plan(['192.0.2.1'], 0).tsas[0]?.servers.map((s) => s.takesNew)).toEqual([
      false,
      true,
    ]);
    engine.heartbeat(SERVERS[1]!, { ...report, state: 'overloaded' }, 0);
    expect(engine.plan(['192.0.2.1'], 0).tsas[0]?.servers.map((s) => s.takesNew)).toEqual([
      true,
      false,
    ]);
  });

  it('Least Load: new connections by spare load (100 − L); established ones and SCTP by weight', () => {
    const engine = engineOf([{ algorithm: 'leastLoad', servers: SERVERS.slice(0, 2) }]);
    engine.heartbeat(SERVERS[0]!, { ...report, connections: 900 }, 0);
    engine.heartbeat(SERVERS[1]!, { ...report, connections: 100 }, 0);
    const [tsa] = engine.plan(['192.0.2.1'], 0).tsas;
    const [loaded, spare] = shares(tsa!.newConnections, 2);
    const [l0, l1] = engine.status(0).targetSets[0]!.servers.map((s) => s.load!);
    expect(l0).toBeGreaterThan(l1!);
    expect(spare! / loaded!).toBeCloseTo((100 - l1!) / (100 - l0!), 1);
    expect(shares(tsa!.existingConnections, 2)).toEqual(shares(tsa!.newByWeight, 2));
    const [a, b] = shares(tsa!.existingConnections, 2);
    expect(Math.abs(a! - b!)).toBeLessThanOrEqual(1);
  });

  it('the secondary TSA gets the same table as the primary, with each row’s secondary address', () => {
    const engine = engineOf([
      {
        protocols: 'sctp',
        secondary: { address: '192.0.2.101', activeIpfe: 'A1' },
        servers: SERVERS.map((address, i) => ({ address, secondaryAddress: `10.2.0.${i + 1}` })),
      } as TargetSetSpec,
    ]);
    const [primary, secondary] = engine.plan(['192.0.2.1', '192.0.2.101'], 0).tsas;
    expect(secondary).toMatchObject({ tsa: '192.0.2.101', secondary: true });
    expect(secondary!.newConnections).toEqual(primary!.newConnections);
    expect(secondary!.servers.map((s) => [s.server, s.address])).toEqual(
      SERVERS.map((address, i) => [address, `10.2.0.${i + 1}`]),
    );
  });

  it('carries the Initiator Port Ranges only where initiator connections are supported', () => {
    const engine = engineOf([
      { tsa: '192.0.2.1', initiatorSupport: true, servers: SERVERS.slice(0, 2) },
      { tsa: '192.0.2.2', initiatorSupport: false, servers: ['10.1.1.1'] },
    ]);
    const [on, off] = engine.plan(['192.0.2.1', '192.0.2.2'], 0).tsas;
    const ranges = on!.servers.map((s) => s.initiatorPorts);
    expect(ranges.every((r) => r !== null && r.start <= r.end)).toBe(true);
    expect(ranges[0]!.end < ranges[1]!.start || ranges[1]!.end < ranges[0]!.start).toBe(true);
    expect(off!.servers[0]?.initiatorPorts).toBeNull();
  });
});
