import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import type { OpenResult } from './types.ts';
import { SERVER_STATES, type ServerState } from './server-state.ts';
import { configDocument, sourceMappedTo, SPEC_STATE_TABLE } from './testing.ts';

const TSA = '192.0.2.1';
const [X, Y, Z] = ['10.1.0.1', '10.1.0.2', '10.1.0.3'] as const;
const LOAD = { mps: 100, mpsCapacity: 1000, connections: 100, connectionCapacity: 1000 };

function hashEngine(weights: [number, number, number] = [100, 100, 100]) {
  const doc = configDocument({
    targetSets: [
      {
        tsa: TSA,
        algorithm: 'hash',
        servers: [X, Y, Z].map((address, i) => ({ address, weight: weights[i] ?? 100 })),
      },
    ],
  });
  const engine = new Engine(doc, 0);
  for (const s of [X, Y, Z]) engine.heartbeat(s, { ...LOAD, state: 'normal' }, 0);
  return engine;
}

/** Puts a server in a state the way the agent would: a heartbeat, a lost or a new connection. */
function enter(engine: Engine, server: string, state: ServerState, now = 1) {
  if (state === 'offline') return engine.serverLost(server, now);
  if (state === 'initializing') return engine.serverConnected(server, now);
  engine.heartbeat(server, { ...LOAD, state }, now);
  return [];
}

function source(engine: Engine, server: string) {
  const s = sourceMappedTo((...a) => engine.hashTarget(...a), TSA, server);
  if (!s) throw new Error(`no source maps to ${server}`);
  return s;
}

const open = (engine: Engine, src: { sourceIp: string; sourcePort: number }, now = 2): OpenResult =>
  engine.open({ protocol: 'tcp', tsa: TSA, port: 3868, ...src }, now);

const serverOf = (r: OpenResult) => (r.ok ? r.server : `refused: ${r.reason}`);

/** Sources 172.16.1.0–255 port 5000: a spread of keys over the whole table. */
const manySources = Array.from({ length: 256 }, (_, i) => ({
  sourceIp: `172.16.1.${i}`,
  sourcePort: 5000,
}));

describe('Hash: the same key always maps to the same server while the table is unchanged', () => {
  it('gives a source the same server on every new connection', () => {
    const engine = hashEngine();
    for (const src of manySources.slice(0, 50)) {
      const first = open(engine, src);
      expect(first.ok).toBe(true);
      if (first.ok) engine.close(first.id);
      const second = open(engine, src, 3);
      expect(serverOf(second)).toBe(serverOf(first));
      expect(serverOf(first)).toBe(engine.hashTarget(TSA, src.sourceIp, src.sourcePort));
    }
  });

  it('spreads sources in proportion to weight', () => {
    const engine = hashEngine([100, 200, 100]);
    const counts = new Map<string, number>();
    for (let port = 1024; port < 21024; port++) {
      const target = engine.hashTarget(TSA, '172.16.9.9', port) ?? '';
      counts.set(target, (counts.get(target) ?? 0) + 1);
    }
    expect((counts.get(Y) ?? 0) / 20000).toBeCloseTo(0.5, 1);
    expect((counts.get(X) ?? 0) / 20000).toBeCloseTo(0.25, 1);
  });
});

describe.each(SERVER_STATES)('Hash, server %s (SPEC §3.1)', (state) => {
  const rules = SPEC_STATE_TABLE[state];

  it(`own new connections: ${rules.ownNew}`, () => {
    const engine = hashEngine();
    const mine = source(engine, X);
    enter(engine, X, state);
    if (rules.inHashTable) expect(engine.hashTarget(TSA, mine.sourceIp, mine.sourcePort)).toBe(X);
    const result = open(engine, mine);
    if (rules.ownNew === 'allow') {
      expect(serverOf(result)).toBe(X);
      return;
    }
    // Refused by X: it overflows to another server.
    expect(result.ok).toBe(true);
    expect(serverOf(result)).not.toBe(X);
    // When no other server can take it, only a stressed server takes its own key.
    enter(engine, Y, 'overloaded');
    enter(engine, Z, 'overloaded');
    const fresh = rules.inHashTable
      ? sourceMappedTo((...a) => engine.hashTarget(...a), TSA, X, '172.16.0.2')
      : { sourceIp: '172.16.0.2', sourcePort: 4000 };
    if (!fresh) throw new Error('no fresh source');
    const last = open(engine, fresh, 3);
    expect(serverOf(last)).toBe(rules.ownNew === 'last-resort' ? X : 'refused: no-server');
  });

  it(`overflow connections: ${rules.overflow}`, () => {
    const engine = hashEngine();
    const theirs = source(engine, Y);
    enter(engine, Y, 'overloaded');
    enter(engine, Z, 'overloaded');
    enter(engine, X, state);
    const result = open(engine, theirs);
    expect(serverOf(result)).toBe(rules.overflow === 'allow' ? X : 'refused: no-server');
  });

  it(`existing connections: ${rules.existing}`, () => {
    const engine = hashEngine();
    const mine = source(engine, X);
    const result = open(engine, mine, 1);
    if (!result.ok) throw new Error('refused');
    const closed = enter(engine, X, state, 2);
    const key = { protocol: 'tcp' as const, tsa: TSA, port: 3868, ...mine };
    if (rules.existing === 'keep') {
      expect(closed).toEqual([]);
      expect(engine.lookup(key)?.server).toBe(X);
    } else {
      expect(closed.map((c) => c.id)).toEqual([result.id]);
      expect(closed[0]?.reason).toBe(
        state === 'offline' ? 'server-offline' : 'server-initializing',
      );
      expect(engine.lookup(key)).toBeNull();
      expect(engine.touch(result.id, 3)).toBe(false);
    }
  });

  it(`hash table entries: ${rules.inHashTable ? 'kept' : 'cleared'}`, () => {
    const engine = hashEngine();
    const mine = manySources.filter((s) => engine.hashTarget(TSA, s.sourceIp, s.sourcePort) === X);
    expect(mine.length).toBeGreaterThan(30);
    enter(engine, X, state);
    const targets = manySources.map((s) => engine.hashTarget(TSA, s.sourceIp, s.sourcePort));
    const stillMine = mine.filter((s) => engine.hashTarget(TSA, s.sourceIp, s.sourcePort) === X);
    if (rules.inHashTable) {
      expect(stillMine).toHaveLength(mine.length);
    } else {
      expect(rules.clearsBuckets).toBe(true);
      expect(targets).not.toContain(X);
    }
  });
});

describe('Hash: weight 0 drains a server', () => {
  it('gives a server of weight 0 no keys and no new connections, even as the last one', () => {
    const engine = hashEngine([0, 100, 100]);
    const targets = manySources.map((s) => engine.hashTarget(TSA, s.sourceIp, s.sourcePort));
    expect(targets).not.toContain(X);
    enter(engine, Y, 'overloaded');
    enter(engine, Z, 'overloaded');
    for (const src of manySources.slice(0, 20)) {
      expect(serverOf(open(engine, src))).toBe('refused: no-server');
    }
  });
});

describe('Hash: stressed takes new connections only when no other server can', () => {
  it('sends a stressed server its own keys only once every other server refuses', () => {
    const engine = hashEngine();
    enter(engine, X, 'stressed');
    const fresh = (ip: string) => {
      const s = sourceMappedTo((...a) => engine.hashTarget(...a), TSA, X, ip);
      if (!s) throw new Error('no source');
      return s;
    };
    expect(serverOf(open(engine, fresh('172.16.0.1')))).not.toBe(X);
    enter(engine, Y, 'halting');
    expect(serverOf(open(engine, fresh('172.16.0.2')))).toBe(Z);
    enter(engine, Z, 'overloaded');
    expect(serverOf(open(engine, fresh('172.16.0.3')))).toBe(X);
  });
});
