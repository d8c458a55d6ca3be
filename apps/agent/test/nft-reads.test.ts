import { describe, expect, it } from 'vitest';
import { nextReadAt } from '../src/nft.ts';

describe('a periodic read of the kernel’s tables', () => {
  const reads = { everyMs: 250, shareOfCore: 0.05 };

  it('runs again after its interval while it is cheap', () => {
    expect(nextReadAt(1000, 1004, reads)).toBe(1250);
  });

  it('waits in proportion to what it cost once it is dear (5 % of a core: 20 times as long)', () => {
    expect(nextReadAt(1000, 1100, reads)).toBe(3000);
  });
});
