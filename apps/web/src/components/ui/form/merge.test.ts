import { describe, expect, it } from 'vitest';
import { changesOf, isConflict, sameValue } from './merge';

describe('changesOf', () => {
  const base = { a: 1, s: { x: 'p', y: true }, list: [{ w: 1 }, { w: 2 }] };

  it('names each field the operator or someone else changed, nested and per list item', () => {
    const mine = { a: 1, s: { x: 'q', y: true }, list: [{ w: 1 }, { w: 5 }] };
    const theirs = { a: 2, s: { x: 'p', y: true }, list: [{ w: 1 }, { w: 7 }] };
    const changes = changesOf(base, mine, theirs);
    expect(changes.map((c) => [c.path, c.byMe, c.byThem])).toEqual([
      ['a', false, true],
      ['s.x', true, false],
      ['list.1.w', true, true],
    ]);
    expect(changes.filter(isConflict).map((c) => c.path)).toEqual(['list.1.w']);
  });

  it('compares a list that grew or shrank as one field', () => {
    const mine = { ...base, list: [{ w: 1 }, { w: 2 }, { w: 3 }] };
    const theirs = { ...base, list: [{ w: 9 }, { w: 2 }] };
    expect(changesOf(base, mine, theirs)).toEqual([
      {
        path: 'list',
        base: base.list,
        mine: mine.list,
        theirs: theirs.list,
        byMe: true,
        byThem: true,
      },
    ]);
  });

  it('is not a conflict when both made the same change', () => {
    const [change] = changesOf({ a: 1 }, { a: 2 }, { a: 2 });
    expect(change).toMatchObject({ byMe: true, byThem: true });
    expect(isConflict(change!)).toBe(false);
  });
});

describe('sameValue', () => {
  it('takes an emptied number box (NaN), null and undefined as the same empty value', () => {
    expect(sameValue(Number.NaN, null)).toBe(true);
    expect(sameValue(undefined, Number.NaN)).toBe(true);
    expect(sameValue(Number.NaN, 0)).toBe(false);
    expect(sameValue('', null)).toBe(false);
  });
});
