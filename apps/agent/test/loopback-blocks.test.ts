import { describe, expect, it } from 'vitest';
import {
  blockOf,
  blockProblems,
  BLOCKS_TAKEN_ELSEWHERE,
  LOOPBACK_BLOCKS,
} from './loopback-blocks.ts';

describe('the loopback blocks of the agent test files', () => {
  it.each([
    ['one block a file, none taken elsewhere', { 'a.test.ts': 31, 'b.test.ts': 32 }, []],
    [
      'a block given twice',
      { 'a.test.ts': 31, 'b.test.ts': 31 },
      ['b.test.ts and a.test.ts both have 127.31.0.0/16'],
    ],
    [
      'a block another suite uses',
      { 'a.test.ts': 45 },
      ['a.test.ts: 127.45.0.0/16 is taken by the chaos test'],
    ],
    ['no /16 of 127.0.0.0/8', { 'a.test.ts': 256 }, ['a.test.ts: 256 is not a /16 of 127.0.0.0/8']],
  ])('%s', (_, blocks, problems) => {
    expect(blockProblems(blocks, { 45: 'the chaos test' })).toEqual(problems);
  });

  it('holds none of these problems', () => {
    expect(blockProblems(LOOPBACK_BLOCKS, BLOCKS_TAKEN_ELSEWHERE)).toEqual([]);
  });

  it('gives a file its block, and none to a file not in the registry', () => {
    expect(blockOf('control.test.ts')).toBe(32);
    expect(() => blockOf('new.test.ts')).toThrow(
      'new.test.ts has no loopback block: add it to LOOPBACK_BLOCKS with a free one',
    );
    expect(() => blockOf('a.test.ts', { 'a.test.ts': 40 })).toThrow(/taken by apps\/api/);
  });
});
