import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import type { OpenRequest, OpenResult } from './types.ts';
import { configDocument, type DocumentSpec } from './testing.ts';

const TSA = '192.0.2.1';
const [X, Y] = ['10.1.0.1', '10.1.0.2'] as const;
const NORMAL = { mps: 0, mpsCapacity: 1000, connections: 0, connectionCapacity: 1000 };

function engineOf(spec: Partial<DocumentSpec> = {}, options = {}) {
  const doc = configDocument({
    targetSets: [{ tsa: TSA, algorithm: 'hash', deleteAgeSeconds: 600, servers: [X, Y] }],
    ...spec,
  });
  const engine = new Engine(doc, 0, options);
  for (const s of [X, Y]) engine.heartbeat(s, NORMAL, 0);
  return engine;
}

let nextPort = 1024;
const request = (over: Partial<OpenRequest> = {}): OpenRequest => ({
  protocol: 'tcp',
  sourceIp: '172.16.0.1',
  sourcePort: nextPort++,
  tsa: TSA,
  port: 3868,
  ...over,
});
function opened(r: OpenResult) {
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r;
}

describe('open', () => {
  it('gives an existing key its server again and counts it once', () => {
    const engine = engineOf();
    const req = request();
    const first = opened(engine.open(req, 1));
    const again = opened(engine.open(req, 2));
    expect(again).toEqual({ ...first, existing: true });
    expect(engine.size).toBe(1);
    expect(engine.counters().targetSets[0]?.servers.reduce((n, s) => n + s.opened, 0)).toBe(1);
  });

  it('refuses with a reason, and counts each refusal', () => {
    const engine = engineOf({
      options: { forwardedPorts: [3868] },
      targetSets: [
        { tsa: TSA, algorithm: 'hash', protocols: 'tcp', servers: [X, Y] },
        { tsa: '192.0.2.2', disabled: true, servers: [X, Y] },
      ],
    });
    const reason = (r: OpenResult) => (r.ok ? 'ok' : r.reason);
    expect(reason(engine.open(request({ sourceIp: 'nonsense' }), 1))).toBe('invalid-source');
    expect(reason(engine.open(request({ sourcePort: 70000 }), 1))).toBe('invalid-source');
    expect(reason(engine.open(request({ tsa: '203.0.113.1' }), 1))).toBe('unknown-tsa');
    expect(reason(engine.open(request({ tsa: '192.0.2.2' }), 1))).toBe('target-set-disabled');
    expect(reason(engine.open(request({ protocol: 'sctp' }), 1))).toBe('protocol-not-supported');
    expect(reason(engine.open(request({ port: 3869 }), 1))).toBe('port-not-forwarded');
    engine.serverLost(X, 1);
    engine.serverLost(Y, 1);
    expect(reason(engine.open(request(), 1))).toBe('no-server');
    const counters = engine.counters();
    expect(counters.refused['invalid-source']).toBe(2);
    expect(counters.refused['unknown-tsa']).toBe(1);
    const ts1 = counters.targetSets.find((t) => t.number === 1)?.refused;
    expect(ts1?.['protocol-not-supported']).toBe(1);
    expect(ts1?.['port-not-forwarded']).toBe(1);
    expect(ts1?.['no-server']).toBe(1);
    expect(counters.targetSets.find((t) => t.number === 2)?.refused['target-set-disabled']).toBe(1);
  });

  it('at the table bound refuses a new connection with table-full and keeps the old ones', () => {
    const engine = engineOf({}, { maxConnections: 3 });
    const old = [1, 2, 3].map(() => opened(engine.open(request(), 1)));
    const r = engine.open(request(), 2);
    expect(r).toEqual({ ok: false, reason: 'table-full', targetSet: 1 });
    expect(engine.counters().targetSets[0]?.refused['table-full']).toBe(1);
    for (const o of old) expect(engine.touch(o.id, 3)).toBe(true);
    engine.close(old[0]?.id ?? -1);
    expect(engine.open(request(), 4).ok).toBe(true);
  });

  it('avoids the servers the agent could not reach', () => {
    const engine = engineOf();
    const req = request();
    const first = opened(engine.open(req, 1));
    engine.close(first.id);
    const other = opened(engine.open({ ...req, avoid: [first.server] }, 2));
    expect(other.server).not.toBe(first.server);
    engine.close(other.id);
    expect(engine.open({ ...req, avoid: [X, Y] }, 3)).toMatchObject({
      ok: false,
      reason: 'no-server',
    });
  });

  it('sends the secondary address of a server for connections to the secondary TSA', () => {
    const engine = engineOf({
      targetSets: [
        {
          tsa: TSA,
          secondary: { address: '192.0.2.101', activeIpfe: 'A2' },
          algorithm: 'hash',
          servers: [
            { address: X, secondaryAddress: '10.2.0.1' },
            { address: Y, secondaryAddress: '10.2.0.2' },
          ],
        },
      ],
    });
    const r = opened(engine.open(request({ tsa: '192.0.2.101' }), 1));
    expect(r.address).toBe(r.server === X ? '10.2.0.1' : '10.2.0.2');
    const primary = opened(engine.open(request(), 1));
    expect(primary.address).toBe(primary.server);
  });

  it('keeps TCP and SCTP connections with the same addresses apart', () => {
    const engine = engineOf();
    const req = request();
    const tcp = opened(engine.open(req, 1));
    const sctp = opened(engine.open({ ...req, protocol: 'sctp' }, 1));
    expect(sctp.id).not.toBe(tcp.id);
    expect(engine.size).toBe(2);
  });
});

describe('lookup, touch and close', () => {
  it('finds an open connection by its key until it is closed', () => {
    const engine = engineOf();
    const req = request();
    const r = opened(engine.open(req, 1));
    expect(engine.lookup(req)).toEqual({
      targetSet: 1,
      tsa: TSA,
      server: r.server,
      address: r.server,
    });
    expect(engine.close(r.id)).toBe(true);
    expect(engine.close(r.id)).toBe(false);
    expect(engine.touch(r.id, 2)).toBe(false);
    expect(engine.lookup(req)).toBeNull();
    expect(engine.lookup({ ...req, tsa: '203.0.113.1' })).toBeNull();
  });

  it('looks up IPv6 clients too', () => {
    const engine = engineOf();
    const req = request({ sourceIp: '2001:db8::7' });
    const r = opened(engine.open(req, 1));
    expect(engine.lookup(req)?.server).toBe(r.server);
    expect(engine.lookup({ ...req, sourceIp: '2001:db8::8' })).toBeNull();
    const v4 = request({ sourceIp: '172.16.5.5' });
    const r4 = opened(engine.open(v4, 1));
    expect(engine.lookup({ ...v4, sourceIp: '::ffff:172.16.5.5' })?.server).toBe(r4.server);
    expect(engine.lookup({ ...v4, sourceIp: 'bogus' })).toBeNull();
  });
});

describe('Delete Age (SPEC §3.5)', () => {
  it('expires a connection idle for exactly deleteAgeSeconds; one touched in between stays', () => {
    // Monitoring disabled: the servers stay normal without heartbeats for the whole test.
    const engine = engineOf({ options: { monitorProtocol: 'disabled' } });
    const idle = opened(engine.open(request(), 1000));
    const busy = opened(engine.open(request(), 1000));
    expect(engine.touch(busy.id, 500_000)).toBe(true);
    expect(engine.expire(1000 + 599_999)).toEqual([]);
    expect(engine.expire(1000 + 600_000)).toEqual([
      { id: idle.id, targetSet: 1, server: idle.server, reason: 'idle' },
    ]);
    expect(engine.touch(idle.id, 700_000)).toBe(false);
    expect(engine.expire(1_099_999)).toEqual([]);
    expect(engine.expire(1_100_000).map((c) => c.id)).toEqual([busy.id]);
    const counters = engine.counters().targetSets[0]?.servers ?? [];
    expect(counters.reduce((n, s) => n + s.expired, 0)).toBe(2);
    expect(counters.reduce((n, s) => n + s.active, 0)).toBe(0);
  });
});

describe('server states and connections', () => {
  function withConnections() {
    const engine = engineOf();
    const on = { [X]: [] as number[], [Y]: [] as number[] };
    for (let i = 0; i < 40; i++) {
      const r = opened(engine.open(request(), 1));
      on[r.server as typeof X]?.push(r.id);
    }
    expect(on[X].length).toBeGreaterThan(0);
    expect(on[Y].length).toBeGreaterThan(0);
    return { engine, on };
  }

  it('returns the connections of a server that goes offline, for closing', () => {
    const { engine, on } = withConnections();
    const closed = engine.serverLost(X, 2);
    expect(closed.map((c) => c.id).sort()).toEqual([...on[X]].sort());
    expect(closed.every((c) => c.reason === 'server-offline' && c.server === X)).toBe(true);
    expect(engine.counters().targetSets[0]?.servers[0]).toMatchObject({
      address: X,
      active: 0,
      evicted: on[X].length,
    });
    // Y's connections are untouched.
    for (const id of on[Y]) expect(engine.touch(id, 3)).toBe(true);
  });

  it('returns the connections of a server that turns initializing (monitoring reconnects)', () => {
    const { engine, on } = withConnections();
    const closed = engine.serverConnected(X, 2);
    expect(closed.map((c) => c.id).sort()).toEqual([...on[X]].sort());
    expect(closed.every((c) => c.reason === 'server-initializing')).toBe(true);
    expect(engine.status(2).targetSets[0]?.servers[0]?.state).toBe('initializing');
  });

  it('keeps a silent server offline when its monitoring connection is accepted again', () => {
    const { engine } = withConnections();
    engine.heartbeat(Y, NORMAL, 2900);
    engine.expire(3000); // X silent for connectTimeoutS
    const stateOfX = (now: number) => engine.status(now).targetSets[0]?.servers[0]?.state;
    expect(stateOfX(3000)).toBe('offline');
    for (let t = 4000; t <= 20_000; t += 4000) {
      engine.serverLost(X, t); // the agent drops the silent connection and connects again
      engine.serverConnected(X, t + 1000);
      engine.heartbeat(Y, NORMAL, t + 1000);
      engine.expire(t + 2000);
      expect(stateOfX(t + 2000)).toBe('offline');
    }
    engine.heartbeat(X, NORMAL, 21_000);
    expect(stateOfX(21_000)).toBe('normal');
  });

  it('keeps the connections of a halting server', () => {
    const { engine, on } = withConnections();
    engine.heartbeat(X, { ...NORMAL, state: 'halting' }, 2);
    for (const id of on[X]) expect(engine.touch(id, 3)).toBe(true);
    expect(engine.counters().targetSets[0]?.servers[0]?.active).toBe(on[X].length);
  });

  it('turns a silent server offline after connectTimeoutS, at expire', () => {
    const { engine, on } = withConnections();
    engine.heartbeat(Y, NORMAL, 2500);
    expect(engine.expire(2999)).toEqual([]); // 3 s default; X last heard at 0
    const closed = engine.expire(3000);
    expect(closed.map((c) => c.id).sort()).toEqual([...on[X]].sort());
    expect(engine.status(3000).targetSets[0]?.servers.map((s) => s.state)).toEqual([
      'offline',
      'normal',
    ]);
    engine.heartbeat(X, NORMAL, 4000);
    expect(engine.status(4000).targetSets[0]?.servers[0]?.state).toBe('normal');
  });

  it('starts servers as initializing until their first heartbeat', () => {
    const doc = configDocument({ targetSets: [{ tsa: TSA, algorithm: 'hash', servers: [X] }] });
    const engine = new Engine(doc, 0);
    expect(engine.status(0).targetSets[0]).toMatchObject({ activeBindings: 0 });
    expect(engine.open(request(), 1)).toMatchObject({ ok: false, reason: 'no-server' });
    engine.heartbeat(X, NORMAL, 1);
    expect(engine.status(1).targetSets[0]).toMatchObject({ activeBindings: 1 });
    expect(engine.open(request(), 1).ok).toBe(true);
  });

  it('with tcpConnectOnly a connected server is normal; with monitoring disabled every server is', () => {
    const tcp = new Engine(
      configDocument({
        options: { monitorProtocol: 'tcpConnectOnly' },
        targetSets: [{ tsa: TSA, algorithm: 'hash', servers: [X] }],
      }),
      0,
    );
    expect(tcp.status(0).targetSets[0]?.servers[0]?.state).toBe('initializing');
    tcp.serverConnected(X, 1);
    expect(tcp.status(1).targetSets[0]?.servers[0]?.state).toBe('normal');
    expect(tcp.expire(60_000)).toEqual([]); // no heartbeats expected
    expect(tcp.status(60_000).targetSets[0]?.servers[0]?.state).toBe('normal');
    tcp.serverLost(X, 60_001);
    expect(tcp.status(60_001).targetSets[0]?.servers[0]?.state).toBe('offline');

    const off = new Engine(
      configDocument({
        options: { monitorProtocol: 'disabled' },
        targetSets: [{ tsa: TSA, algorithm: 'hash', servers: [X] }],
      }),
      0,
    );
    off.serverLost(X, 1);
    off.expire(1_000_000);
    expect(off.status(1_000_000).targetSets[0]?.servers[0]?.state).toBe('normal');
  });
});

describe('status', () => {
  it('counts active bindings: servers able to take new connections, of those listed', () => {
    const engine = engineOf({
      targetSets: [
        {
          tsa: TSA,
          algorithm: 'hash',
          servers: [X, Y, { address: '10.1.0.3', weight: 0 }, '10.1.0.4'],
        },
      ],
    });
    engine.heartbeat('10.1.0.3', NORMAL, 0);
    engine.heartbeat('10.1.0.4', { ...NORMAL, state: 'overloaded' }, 0);
    const ts = engine.status(0).targetSets[0];
    expect(ts?.activeBindings).toBe(2);
    expect(ts?.servers).toHaveLength(4);
  });
});
