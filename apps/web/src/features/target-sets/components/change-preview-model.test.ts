import { describe, expect, it } from 'vitest';
import { hashShares, remappedShare, shareRows } from './change-preview-model';

const list = (...weights: number[]) =>
  weights.map((weight, i) => ({ address: `10.0.0.${i + 1}`, weight }));

describe('the change preview', () => {
  it('remaps nothing when the list is unchanged', () => {
    expect(remappedShare(list(100, 100, 100), list(100, 100, 100))).toBe(0);
  });

  it('remaps only the drained server’s clients when one of three goes to weight 0', () => {
    const moved = remappedShare(list(100, 100, 100), list(100, 100, 0))!;
    // That server held a third of the keys; Maglev moves them and (almost) nothing else.
    expect(moved).toBeGreaterThan(1 / 3 - 0.001);
    expect(moved).toBeLessThan(1 / 3 + 0.01);
  });

  it('moves about a quarter of the clients to a fourth server added', () => {
    const moved = remappedShare(list(100, 100, 100), list(100, 100, 100, 100))!;
    expect(moved).toBeGreaterThan(0.25 - 0.001);
    expect(moved).toBeLessThan(0.25 + 0.01);
  });

  it('gives each server a share of the table in proportion to its weight', () => {
    const shares = hashShares(list(100, 200, 100));
    expect(shares.get('10.0.0.2')).toBeCloseTo(50, 1);
    expect(shares.get('10.0.0.1')).toBeCloseTo(25, 1);
  });

  it('lists removed and added servers beside the kept ones', () => {
    const saved = list(100, 100);
    const edited = [saved[0]!, { address: '10.0.0.9', weight: 100 }];
    expect(shareRows(saved, edited, 'leastLoad')).toEqual([
      { address: '10.0.0.1', saved: 50, edited: 50 },
      { address: '10.0.0.2', saved: 50, edited: null },
      { address: '10.0.0.9', saved: null, edited: 50 },
    ]);
  });

  it('has no figure when a list has no non-zero weight', () => {
    expect(remappedShare(list(0, 0), list(100))).toBeNull();
  });
});
