import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import type { Heartbeat, OpenResult } from './types.ts';
import { SERVER_STATES, type ServerState } from './server-state.ts';
import { configDocument, SPEC_STATE_TABLE, type TargetSetSpec } from './testing.ts';
import type { OptionsInput, PeerNodeGroup } from '@ipfe/schema';

const TSA = '192.0.2.1';
const [A, B, C] = ['10.1.0.1', '10.1.0.2', '10.1.0.3'] as const;

interface Setup {
  weights?: number[];
  leastLoad?: TargetSetSpec['leastLoad'];
  options?: OptionsInput;
  peerNodeGroups?: PeerNodeGroup[];
  /** Heartbeats by server (mpsCapacity and connectionCapacity default to 1000). */
  reports?: Partial<Heartbeat>[];
}

function llEngine(setup: Setup = {}) {
  const servers = [A, B, C].slice(0, setup.weights?.length ?? 3);
  const doc = configDocument({
    options: setup.options,
    peerNodeGroups: setup.peerNodeGroups,
    targetSets: [
      {
        tsa: TSA,
        algorithm: 'leastLoad',
        leastLoad: { peerNodeAware: false, ...setup.leastLoad },
        servers: servers.map((address, i) => ({ address, weight: setup.weights?.[i] ?? 100 })),
      },
    ],
  });
  const engine = new Engine(doc, 0);
  servers.forEach((s, i) =>
    engine.heartbeat(
      s,
      {
        mps: 0,
        mpsCapacity: 1000,
        connections: 0,
        connectionCapacity: 1000,
        ...setup.reports?.[i],
      },
      0,
    ),
  );
  return engine;
}

let port = 1024;
const open = (engine: Engine, now = 1, sourceIp = '172.16.0.1'): OpenResult =>
  engine.open({ protocol: 'tcp', tsa: TSA, port: 3868, sourceIp, sourcePort: port++ }, now);
const serverOf = (r: OpenResult) => (r.ok ? r.server : `refused: ${r.reason}`);
const name = (r: OpenResult) => ({ [A]: 'a', [B]: 'b', [C]: 'c' })[serverOf(r)] ?? serverOf(r);

describe('Least Load: L computed from the reports (SPEC §3.3)', () => {
  it('shows the L of each server as computed by hand', () => {
    const engine = llEngine({
      weights: [100, 50, 100],
      // Fm/Fc 1/2 are normalized to 33/67 by the schema.
      leastLoad: { mpsFactor: 1, connectionCountFactor: 2 },
      reports: [
        { mps: 300, mpsCapacity: 1000, connections: 200, connectionCapacity: 1000 },
        { mps: 300, mpsCapacity: 1000, connections: 200, connectionCapacity: 1000 },
        { mps: 900, mpsCapacity: 3000, connections: 4500, connectionCapacity: 9000 },
      ],
    });
    const loads = engine.status(0).targetSets[0]?.servers.map((s) => s.load);
    expect(loads?.[0]).toBeCloseTo(33 * 0.3 + 67 * 0.2, 10); // 23.3
    expect(loads?.[1]).toBeCloseTo((33 * 0.3 + 67 * 0.2) * 2, 10); // half the weight: 46.6
    expect(loads?.[2]).toBeCloseTo(33 * 0.3 + 67 * 0.5, 10); // 43.4
  });

  it('counts the connections it gave a server in the last second as its load (c′ = c + r)', () => {
    const engine = llEngine({
      weights: [100],
      leastLoad: { mpsFactor: 0, connectionCountFactor: 100 },
      reports: [{ connections: 100 }],
    });
    for (let i = 0; i < 50; i++) open(engine, 10_000);
    const [server] = engine.status(10_000).targetSets[0]?.servers ?? [];
    expect(server?.recent).toBe(50);
    expect(server?.load).toBeCloseTo((100 * 150) / 1000, 10);
    expect(engine.status(11_000).targetSets[0]?.servers[0]?.load).toBeCloseTo(10, 10);
  });
});

describe('Least Load: the choice', () => {
  it('takes the least loaded when the next is at least allowedDeviation above it', () => {
    // Fm = 100: L follows mps only, which new connections do not change.
    const engine = llEngine({
      leastLoad: { mpsFactor: 100, connectionCountFactor: 0, allowedDeviation: 5 },
      reports: [{ mps: 300 }, { mps: 100 }, { mps: 150 }],
    });
    const picks = Array.from({ length: 20 }, () => name(open(engine)));
    expect(new Set(picks)).toEqual(new Set(['b']));
  });

  it('interleaves by smooth weighted round-robin within allowedDeviation: 5/1/1 → a a b a c a a', () => {
    const engine = llEngine({
      weights: [5, 1, 1],
      leastLoad: { mpsFactor: 100, connectionCountFactor: 0, allowedDeviation: 5 },
    });
    const picks = Array.from({ length: 14 }, () => name(open(engine))).join(' ');
    expect(picks).toBe('a a b a c a a a a b a c a a');
  });

  it('round-robins only among the servers within allowedDeviation of the least loaded', () => {
    const engine = llEngine({
      leastLoad: { mpsFactor: 100, connectionCountFactor: 0, allowedDeviation: 5 },
      reports: [{ mps: 100 }, { mps: 140 }, { mps: 200 }],
    });
    const picks = Array.from({ length: 6 }, () => name(open(engine))).join(' ');
    expect(picks).toBe('a b a b a b');
  });

  it('spreads 1,000 connections opened between two reports by spare capacity, not all to the least loaded', () => {
    const engine = llEngine({
      leastLoad: { mpsFactor: 0, connectionCountFactor: 100, allowedDeviation: 5 },
      reports: [{ connections: 100 }, { connections: 400 }, { connections: 700 }],
    });
    const given = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 1000; i++) {
      const n = name(open(engine, 5000 + i / 2)) as keyof typeof given; // all within 0.5 s
      given[n]++;
    }
    // Spare capacity 900 / 600 / 300: the emptiest server gets the most, and every one gets
    // some; without the rate term all 1,000 would have gone to a.
    expect(given.a).toBeGreaterThan(given.b);
    expect(given.b).toBeGreaterThan(given.c);
    expect(given.c).toBeGreaterThan(0);
    expect(given.a).toBeLessThan(700);
    // They end up level: c + r within allowedDeviation (5 % of 1,000) of each other.
    const fill = [100 + given.a, 400 + given.b, 700 + given.c];
    expect(Math.max(...fill) - Math.min(...fill)).toBeLessThanOrEqual(50 + 1);
  });

  it('below leastLoadThreshold new connections per second, reverts to weighted round-robin', () => {
    const engine = llEngine({
      options: { leastLoadThreshold: 30 },
      leastLoad: { mpsFactor: 100, connectionCountFactor: 0, allowedDeviation: 5 },
      reports: [{ mps: 300 }, { mps: 100 }, { mps: 200 }],
    });
    // The first 30 connections of the second see a rate below 30/s: round-robin.
    const slow = Array.from({ length: 30 }, () => name(open(engine, 1000)));
    expect(slow.slice(0, 6).join(' ')).toBe('a b c a b c');
    // From then on the rate is 30/s: Least Load takes the least loaded.
    const busy = Array.from({ length: 10 }, () => name(open(engine, 1000)));
    expect(new Set(busy)).toEqual(new Set(['b']));
    // A second later the rate has dropped again.
    expect(name(open(engine, 2500))).toBe('a');
  });
});

describe.each(SERVER_STATES)('Least Load, server %s: eligibility', (state) => {
  const rules = SPEC_STATE_TABLE[state];
  const enter = (engine: Engine, server: string, s: ServerState) => {
    if (s === 'offline') engine.serverLost(server, 1);
    else if (s === 'initializing') engine.serverConnected(server, 1);
    else
      engine.heartbeat(
        server,
        { mps: 0, mpsCapacity: 1000, connections: 0, connectionCapacity: 1000, state: s },
        1,
      );
  };

  it(`new connections: ${rules.ownNew}`, () => {
    const engine = llEngine({
      weights: [100, 100],
      leastLoad: { mpsFactor: 100, connectionCountFactor: 0 },
      reports: [{ mps: 0 }, { mps: 500 }],
    });
    enter(engine, A, state);
    engine.heartbeat(
      B,
      { mps: 500, mpsCapacity: 1000, connections: 0, connectionCapacity: 1000 },
      1,
    );
    // A is the least loaded; it gets the connection only if its state allows it.
    expect(serverOf(open(engine, 2))).toBe(rules.ownNew === 'allow' ? A : B);
    // With B unable to take it, a stressed A is the last resort.
    enter(engine, B, 'overloaded');
    expect(serverOf(open(engine, 3))).toBe(rules.ownNew === 'refuse' ? 'refused: no-server' : A);
  });
});

describe('Least Load: weight 0', () => {
  it('never chooses a server of weight 0, even when it is the only one left', () => {
    const engine = llEngine({ weights: [0, 100], reports: [{ mps: 0 }, { mps: 900 }] });
    expect(serverOf(open(engine))).toBe(B);
    engine.heartbeat(
      B,
      {
        mps: 900,
        mpsCapacity: 1000,
        connections: 0,
        connectionCapacity: 1000,
        state: 'overloaded',
      },
      1,
    );
    expect(serverOf(open(engine, 2))).toBe('refused: no-server');
  });
});

describe('Peer Node Aware Least Load (SPEC §3.4)', () => {
  const groups: PeerNodeGroup[] = [{ name: 'peers', members: ['172.16.0.0/24'] }];
  const pna = (d: number) =>
    llEngine({
      peerNodeGroups: groups,
      leastLoad: {
        mpsFactor: 100,
        connectionCountFactor: 0,
        allowedDeviation: 5,
        peerNodeAware: true,
        peerNodeThreshold: d,
      },
      // a is by far the least loaded: plain Least Load would send everything there.
      reports: [{ mps: 0 }, { mps: 300 }, { mps: 600 }],
    });

  it('with D = 0 the group is ignored', () => {
    const engine = pna(0);
    const picks = Array.from({ length: 6 }, () => name(open(engine)));
    expect(picks.join(' ')).toBe('a a a a a a');
  });

  it("with D = 1 takes a server with the lowest count of the group's connections", () => {
    const engine = pna(1);
    const picks = Array.from({ length: 9 }, () => name(open(engine)));
    // Each round gives every server one; within a round the least loaded goes first.
    expect(picks.join(' ')).toBe('a b c a b c a b c');
    // Connections from outside the group are not filtered.
    expect(name(open(engine, 1, '10.9.9.9'))).toBe('a');
  });

  it('with D = 2 takes any server within one of the lowest count', () => {
    const engine = pna(2);
    const counts = { a: 0, b: 0, c: 0 };
    const picks: string[] = [];
    for (let i = 0; i < 12; i++) {
      const n = name(open(engine)) as keyof typeof counts;
      expect(counts[n] - Math.min(...Object.values(counts))).toBeLessThanOrEqual(1);
      counts[n]++;
      picks.push(n);
    }
    expect(picks.slice(0, 2).join(' ')).toBe('a a');
  });

  it("forgets a closed connection's group", () => {
    const engine = pna(1);
    const first = open(engine);
    expect(name(first)).toBe('a');
    if (first.ok) engine.close(first.id);
    expect(name(open(engine))).toBe('a');
  });
});
