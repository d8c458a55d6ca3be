import { describe, expect, it } from 'vitest';
import { runsOf } from './rate-chart';

const at = (s: number) => new Date(s * 1000).toISOString();

describe('runsOf: the lines of a rate chart', () => {
  it.each([
    [
      'successive steps make one line',
      [
        [0, 1],
        [10, 2],
        [20, 3],
      ],
      [[1, 2, 3]],
    ],
    [
      'a step nobody reported breaks the line',
      [
        [0, 1],
        [10, 2],
        [40, 3],
      ],
      [[1, 2], [3]],
    ],
    [
      'a step not counted breaks it too',
      [
        [0, 1],
        [10, null],
        [20, 3],
      ],
      [[1], [3]],
    ],
    [
      'nothing counted draws nothing',
      [
        [0, null],
        [10, null],
      ],
      [],
    ],
    ['no steps draw nothing', [], []],
  ] as const)('%s', (_, points, expected) => {
    const runs = runsOf(
      points.map(([s, value]) => ({ at: at(s), value })),
      10_000,
    );
    expect(runs.map((run) => run.map((p) => p.v))).toEqual(expected);
  });
});
