import { describe, expect, it } from 'vitest';
import { replacementNumber, takenNumberNote } from './insert-number';

const numbered = (...numbers: number[]) => numbers.map((number) => ({ number }));
const all = numbered(...Array.from({ length: 32 }, (_, i) => i + 1));

describe("Insert's TS Number when another client takes it", () => {
  it.each([
    ['a free number stays', 3, numbered(1, 2), false, null],
    ['a taken one goes to the lowest unused', 2, numbered(1, 2), false, 3],
    ['a taken one below a gap goes to the gap', 4, numbered(2, 4), false, 1],
    ['with none left, to none (NaN)', 32, all, false, Number.NaN],
    ['none to offer stays none', Number.NaN, all, false, null],
    ['an Edit keeps its own number', 2, numbered(1, 2), true, null],
  ])('%s', (_, chosen, targetSets, editing, expected) => {
    expect(replacementNumber(chosen, targetSets, editing)).toBe(expected);
  });

  it.each([
    [null, 1, undefined],
    [2, 2, undefined],
    [
      2,
      3,
      'Target Set 2 was inserted by someone else meanwhile; 3 is the lowest unused number now.',
    ],
    [32, Number.NaN, 'Target Set 32 was inserted by someone else meanwhile; no number is left.'],
  ])('says why number %s became %s', (taken, chosen, note) => {
    expect(takenNumberNote(taken, chosen)).toBe(note);
  });
});
