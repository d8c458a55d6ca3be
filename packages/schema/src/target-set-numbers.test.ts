import { describe, expect, it } from 'vitest';
import { lowestUnusedTargetSetNumber, unusedTargetSetNumbers } from './target-set-numbers.ts';

const all = Array.from({ length: 32 }, (_, i) => ({ number: i + 1 }));

describe('the unused Target Set numbers', () => {
  it('are offered lowest first, keeping the edited one', () => {
    expect(unusedTargetSetNumbers([{ number: 1 }, { number: 3 }]).slice(0, 3)).toEqual([2, 4, 5]);
    expect(unusedTargetSetNumbers([{ number: 1 }, { number: 3 }], 3).slice(0, 3)).toEqual([
      2, 3, 4,
    ]);
    expect(unusedTargetSetNumbers(all)).toEqual([]);
  });

  it('give an insert that names none the lowest, or none once all 32 are in use', () => {
    expect(lowestUnusedTargetSetNumber([{ number: 1 }, { number: 3 }])).toBe(2);
    expect(lowestUnusedTargetSetNumber([])).toBe(1);
    expect(lowestUnusedTargetSetNumber(all)).toBeNull();
  });
});
