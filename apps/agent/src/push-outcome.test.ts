import { describe, expect, it } from 'vitest';
import { judgePush } from './push-outcome.ts';
import { testDocument } from './testing.ts';

const r5 = testDocument(5);
const r4 = testDocument(4);
const r6 = testDocument(6);
const r5other = testDocument(5, (c) => {
  c.options.mateTimeoutMs = 900;
});

describe('the verdict on a pushed document', () => {
  it.each([
    ['the first document', null, r5, { outcome: 'applied', apply: true }],
    ['a newer revision', r5, r6, { outcome: 'applied', apply: true }],
    ['the applied revision again, same content', r5, r5, { outcome: 'applied', apply: false }],
    [
      'an older revision',
      r5,
      r4,
      { outcome: 'stale', message: 'revision 4 is older than the applied revision 5' },
    ],
    [
      'the applied revision with other content',
      r5,
      r5other,
      { outcome: 'stale', message: 'revision 5 is applied already with other content' },
    ],
  ] as const)('%s', (_name, applied, body, expected) => {
    const verdict = judgePush(applied, body);
    expect(verdict).toMatchObject(expected);
    if (verdict.outcome === 'applied') expect(verdict.document).toEqual(body);
  });

  it.each([
    ['not a document', 'hello', null],
    ['a digest that does not match', { ...r6, sha256: '0'.repeat(64) }, 'sha256'],
    [
      'an invalid configuration, even older than the applied one',
      { ...r4, formatVersion: 99 },
      'formatVersion',
    ],
  ])('%s is invalid', (_name, body, path) => {
    const verdict = judgePush(r5, body);
    expect(verdict.outcome).toBe('invalid');
    if (verdict.outcome !== 'invalid') return;
    expect(verdict.message).toMatch(/^Configuration rejected: /);
    if (path) expect(verdict.fields.map((f) => f.path)).toContain(path);
  });
});
