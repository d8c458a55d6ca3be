import { describe, expect, it } from 'vitest';
import {
  bandTop,
  chooseLeastLoaded,
  leastLoadCandidates,
  leastTakesAll,
  loadIndex,
  newConnectionRule,
  type LoadInputs,
} from './least-load.ts';
import { OWN_NEW_BY_CODE, SERVER_STATES, STATE_CODE, type ServerState } from './server-state.ts';

const report = (x: Partial<LoadInputs>): LoadInputs => ({
  mpsFactor: 50,
  connectionCountFactor: 50,
  mps: 0,
  mpsCapacity: 1000,
  connections: 0,
  connectionCapacity: 1000,
  recent: 0,
  weight: 100,
  highestWeight: 100,
  ...x,
});

describe('L(s) = (Fm·m/mtotal + Fc·c′/ctotal) · Whigh / w', () => {
  it('matches values computed by hand', () => {
    // 50·300/1000 + 50·200/1000 = 15 + 10
    expect(loadIndex(report({ mps: 300, connections: 200 }))).toBeCloseTo(25, 12);
    // Half the weight of the heaviest server doubles L.
    expect(loadIndex(report({ mps: 300, connections: 200, weight: 50 }))).toBeCloseTo(50, 12);
    // c′ = c + r: 100 connections given in the last second count as load already.
    expect(loadIndex(report({ mps: 300, connections: 200, recent: 100 }))).toBeCloseTo(30, 12);
    // Fm/Fc normalized 33/67 (from 1/2): 33·900/3000 + 67·4500/9000 = 9.9 + 33.5
    expect(
      loadIndex(
        report({
          mpsFactor: 33,
          connectionCountFactor: 67,
          mps: 900,
          mpsCapacity: 3000,
          connections: 4500,
          connectionCapacity: 9000,
        }),
      ),
    ).toBeCloseTo(43.4, 12);
    // Fully loaded at the highest weight is 100.
    expect(loadIndex(report({ mps: 1000, connections: 1000 }))).toBeCloseTo(100, 12);
  });
});

describe('chooseLeastLoaded', () => {
  const choose = (loads: number[], deviation: number, weights = loads.map(() => 1)) => {
    const current = new Float64Array(loads.length);
    return (count: number) =>
      Array.from({ length: count }, () =>
        chooseLeastLoaded(
          Int32Array.from(loads.map((_, i) => i)),
          loads.length,
          loads,
          weights,
          deviation,
          current,
        ),
      );
  };

  it('takes the least loaded when the runner-up is at least the allowed deviation above', () => {
    expect(choose([30, 10, 15], 5)(4)).toEqual([1, 1, 1, 1]);
  });

  it('round-robins among those within the allowed deviation of the least loaded', () => {
    expect(choose([30, 10, 14], 5)(4)).toEqual([1, 2, 1, 2]);
    expect(choose([10, 12, 15, 16], 5)(6)).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('with deviation 0 always takes the least loaded', () => {
    expect(choose([3, 3, 1], 0)(3)).toEqual([2, 2, 2]);
  });

  it('returns -1 without candidates and the only one when alone', () => {
    expect(chooseLeastLoaded(new Int32Array(0), 0, [], [], 5, new Float64Array(0))).toBe(-1);
    expect(
      chooseLeastLoaded(Int32Array.of(2), 1, [0, 0, 99], [1, 1, 1], 5, new Float64Array(3)),
    ).toBe(2);
  });
});

describe('the Least Load candidates', () => {
  it.each([
    [100, 'normal', 'allow'],
    [0, 'normal', 'refuse'],
    [10, 'stressed', 'last-resort'],
    [0, 'stressed', 'refuse'],
    [100, 'offline', 'refuse'],
    [100, 'halting', 'refuse'],
  ] as const)('weight %i, %s: %s', (weight, state, rule) => {
    expect(newConnectionRule(weight, state)).toBe(rule);
  });

  it('is the rule the engine compiles into its per-state table', () => {
    const code = { allow: 2, 'last-resort': 1, refuse: 0 } as const;
    for (const state of SERVER_STATES)
      expect(code[newConnectionRule(1, state)], state).toBe(OWN_NEW_BY_CODE[STATE_CODE[state]]);
  });

  const server = (name: string, weight: number, state: ServerState) => ({ name, weight, state });
  const rule = (s: ReturnType<typeof server>) => newConnectionRule(s.weight, s.state);
  it.each([
    ['the allowed ones', [server('a', 1, 'normal'), server('b', 1, 'stressed')], ['a'], false],
    [
      'the stressed ones when none is allowed',
      [server('a', 0, 'normal'), server('b', 1, 'stressed')],
      ['b'],
      true,
    ],
    ['none when every one refuses', [server('a', 1, 'offline')], [], true],
  ])('are %s', (_, servers, names, lastResort) => {
    const picked = leastLoadCandidates(servers, rule);
    expect(picked.candidates.map((s) => s.name)).toEqual(names);
    expect(picked.lastResort).toBe(lastResort);
  });
});

describe('the allowed-deviation band', () => {
  it.each([
    [10, 15, 5, true],
    [10, 14.9, 5, false],
    [10, Number.POSITIVE_INFINITY, 5, true],
    [10, 10, 0, true],
  ])('lowest %d, runner-up %d, deviation %d: the least loaded takes all = %s', (l1, l2, d, all) => {
    expect(leastTakesAll(l1, l2, d)).toBe(all);
  });

  it('tops at the lowest plus the deviation', () => {
    expect(bandTop(12.5, 5)).toBe(17.5);
  });
});
