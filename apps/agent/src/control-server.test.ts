import { describe, expect, it } from 'vitest';
import { pushReply } from './control-server.ts';
import type { PushOutcome } from './push-outcome.ts';

describe('a push outcome as the HTTP answer', () => {
  it.each<[PushOutcome, number, unknown]>([
    [{ outcome: 'applied', revision: 3, sha256: 'ab' }, 200, { revision: 3, sha256: 'ab' }],
    [
      { outcome: 'stale', message: 'too old' },
      409,
      {
        error: {
          code: 'STALE_REVISION',
          message: 'too old',
          fields: [{ path: 'revision', message: 'too old' }],
        },
      },
    ],
    [
      { outcome: 'invalid', message: 'bad', fields: [{ path: 'config', message: 'missing' }] },
      422,
      {
        error: {
          code: 'INVALID_CONFIG',
          message: 'bad',
          fields: [{ path: 'config', message: 'missing' }],
        },
      },
    ],
  ])('%j answers %i', (outcome, status, body) => {
    expect(pushReply(outcome)).toEqual({ status, body });
  });
});
