import { describe, expect, it } from 'vitest';
import { emptyConfiguration, type DocumentConfig } from '@ipfe/schema';
import { diffConfigs } from './diff.ts';
import { overwrittenEdits, type HistoryEntry } from './overwrites.ts';

const base = emptyConfiguration() as unknown as DocumentConfig;
const withOption = (key: string, value: unknown): DocumentConfig =>
  ({ ...base, options: { ...base.options, [key]: value } }) as DocumentConfig;

const history = (...steps: [number, string, DocumentConfig][]): HistoryEntry[] =>
  steps.map(([number, author, config]) => ({ number, author, config }));

describe('overwrittenEdits', () => {
  const firstPreview = withOption('mateIntervalMs', 100);
  const aliceEdit = withOption('mateIntervalMs', 200);
  // The file says 100 again: importing it undoes alice's revision 5.
  const file = withOption('mateIntervalMs', 100);

  const elsewhere = {
    ...firstPreview,
    options: { ...firstPreview.options, connectTimeoutS: 9 },
  } as DocumentConfig;

  it.each([
    [
      'another operator changed the value since',
      history([4, 'x', firstPreview], [5, 'alice', aliceEdit]),
      file,
      [{ path: 'options.mateIntervalMs', revision: 5, author: 'alice' }],
    ],
    [
      'the importer changed it himself',
      history([4, 'x', firstPreview], [5, 'bob', aliceEdit]),
      file,
      [],
    ],
    [
      'nobody changed it since',
      history([4, 'x', firstPreview]),
      withOption('mateIntervalMs', 150),
      [],
    ],
    [
      'the latest of several commits is named',
      history(
        [4, 'x', firstPreview],
        [5, 'alice', aliceEdit],
        [6, 'carol', withOption('mateIntervalMs', 300)],
      ),
      file,
      [{ path: 'options.mateIntervalMs', revision: 6, author: 'carol' }],
    ],
    [
      'a commit to another field is no overwrite',
      history([4, 'x', firstPreview], [5, 'alice', elsewhere]),
      { ...elsewhere, options: { ...elsewhere.options, mateIntervalMs: 150 } } as DocumentConfig,
      [],
    ],
  ])('%s', (_case, past, imported, expected) => {
    const now = past.at(-1)!.config;
    expect(overwrittenEdits(diffConfigs(now, imported), past, 'bob')).toEqual(expected);
  });
});
