import { describe, expect, it } from 'vitest';
import { NOTHING_TO_SAVE, savedAs } from './commits';

describe('savedAs', () => {
  it('says which revision a save made', () => {
    expect(savedAs('Target Set 2', { revision: 7 })).toBe('Target Set 2 saved as revision 7.');
  });

  it('says that nothing was saved when the save changed nothing', () => {
    expect(savedAs('Options', { revision: null, unchanged: true })).toBe(
      'Nothing to save: no change.',
    );
    expect(NOTHING_TO_SAVE).toBe('Nothing to save: no change.');
  });
});
