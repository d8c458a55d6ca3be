import { describe, expect, it } from 'vitest';
import { chooseLeastLoaded, loadIndex, type LoadInputs } from './least-load.ts';

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
