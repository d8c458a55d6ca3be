import { describe, expect, it } from 'vitest';
import { unreachableAlarmDue } from './unreachable-alarm.ts';

describe('unreachableAlarmDue', () => {
  const startedAt = 1_000_000;
  it.each([
    ['not reached yet, within the grace', false, 0, 15_000, false],
    ['not reached yet, just before the grace ends', false, 14_999, 15_000, false],
    ['not reached yet, the grace over', false, 15_000, 15_000, true],
    ['not reached yet, long after the grace', false, 3_600_000, 15_000, true],
    ['not reached yet, no grace', false, 0, 0, true],
    ['reached since the start, within the grace: at once', true, 10, 15_000, true],
    ['reached since the start, the grace over', true, 20_000, 15_000, true],
  ])('%s', (_what, everReached, sinceStart, graceMs, due) => {
    expect(
      unreachableAlarmDue({ everReached, startedAt, now: startedAt + sinceStart, graceMs }),
    ).toBe(due);
  });
});
