import { describe, expect, it } from 'vitest';
import type { Draft } from '@/lib/drafts';
import { restoreOf } from './draft-restore';

const opened = { age: 600, note: 'a' };
const typed = { age: 900, note: 'a' };

describe('restoreOf', () => {
  it.each<[string, Omit<Draft, 'user'>, unknown, string]>([
    [
      'being saved, and the save went through',
      { base: opened, mine: typed, saving: true },
      typed,
      'own-save',
    ],
    [
      'being saved, the save failed',
      { base: opened, mine: typed, saving: true },
      opened,
      'restore',
    ],
    [
      'being saved, someone else saved another value first',
      { base: opened, mine: typed, saving: true },
      { age: 700, note: 'a' },
      'conflict',
    ],
    [
      'being saved, went through, then someone else saved more',
      { base: opened, mine: typed, saving: true },
      { age: 900, note: 'b' },
      'conflict',
    ],
    ['not being saved, nobody saved', { base: opened, mine: typed }, opened, 'restore'],
    [
      'not being saved, someone else saved the same value',
      { base: opened, mine: typed },
      typed,
      'conflict',
    ],
    [
      'not being saved, someone else saved another field',
      { base: opened, mine: typed },
      { age: 600, note: 'b' },
      'conflict',
    ],
    [
      'no change of the operator’s',
      { base: opened, mine: opened },
      { age: 700, note: 'a' },
      'nothing',
    ],
    [
      'an emptied number box being saved and shown empty',
      { base: opened, mine: { age: Number.NaN, note: 'a' }, saving: true },
      { age: null, note: 'a' },
      'own-save',
    ],
  ])('%s → %s', (_case, draft, shown, kind) => {
    expect(restoreOf({ user: 'olga', ...draft }, shown).kind).toBe(kind);
  });

  it('gives the changes to put back', () => {
    const result = restoreOf({ user: 'olga', base: opened, mine: typed }, { age: 600, note: 'b' });
    expect(result).toMatchObject({
      kind: 'conflict',
      changes: [
        { path: 'age', byMe: true, byThem: false },
        { path: 'note', byMe: false, byThem: true },
      ],
    });
  });
});
