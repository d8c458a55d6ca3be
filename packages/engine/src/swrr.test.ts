import { describe, expect, it } from 'vitest';
import { smoothWeightedPick } from './swrr.ts';

function picks(weights: number[], count: number, subset?: number[]): number[] {
  const current = new Float64Array(weights.length);
  const positions = subset ?? weights.map((_, i) => i);
  const out: number[] = [];
  for (let k = 0; k < count; k++) {
    out.push(smoothWeightedPick(Int32Array.from(positions), positions.length, weights, current));
  }
  return out;
}

describe('smooth weighted round-robin', () => {
  it('interleaves weights 5/1/1 as a a b a c a a, never in blocks', () => {
    const names = picks([5, 1, 1], 14).map((i) => 'abc'[i]);
    expect(names.join(' ')).toBe('a a b a c a a a a b a c a a');
  });

  it('takes equal weights in turn', () => {
    expect(picks([1, 1, 1], 6)).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('gives each candidate its weight share over a cycle', () => {
    const counts = [0, 0, 0];
    for (const p of picks([3, 2, 5], 1000)) counts[p] = (counts[p] ?? 0) + 1;
    expect(counts).toEqual([300, 200, 500]);
  });

  it('picks only among the candidates given', () => {
    expect(new Set(picks([5, 1, 1], 10, [1, 2]))).toEqual(new Set([1, 2]));
    expect(smoothWeightedPick(new Int32Array(0), 0, [1], new Float64Array(1))).toBe(-1);
  });
});
