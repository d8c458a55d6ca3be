import { Engine } from '@ipfe/engine';
import { describe, expect, it } from 'vitest';
import { BalanceWatch, packetsPerTargetSet } from './balance.ts';
import { testDocument } from './testing.ts';

/** Target Set 1 with 10.0.0.1 and 10.0.0.2, equal weights: each should take half. */
const document = testDocument();
const engine = new Engine(document, 0, { slot: 'A1' });
const counters = (opened: [number, number]) => {
  const c = engine.counters();
  return {
    ...c,
    targetSets: c.targetSets.map((ts) =>
      ts.number === 1
        ? { ...ts, servers: ts.servers.map((s, i) => ({ ...s, opened: opened[i] ?? 0 })) }
        : ts,
    ),
  };
};
const status = () => {
  const s = engine.status(0);
  return {
    ...s,
    targetSets: s.targetSets.map((ts) => ({
      ...ts,
      servers: ts.servers.map((server) => ({ ...server, state: 'normal' as const })),
    })),
  };
};

describe('the balance of new connections over the last minute', () => {
  it.each([
    { case: 'shares as weighted: nothing', opened: [100, 100], threshold: 10, expected: [] },
    {
      case: 'one above and one below by more than the threshold: 5008 and 5007',
      opened: [140, 60],
      threshold: 10,
      expected: [
        [
          '10.0.0.1',
          'high',
          '10.0.0.1 took 70.0 % of new connections in the last minute; expected 50.0 %',
        ],
        [
          '10.0.0.2',
          'low',
          '10.0.0.2 took 30.0 % of new connections in the last minute; expected 50.0 %',
        ],
      ],
    },
    { case: 'off by the threshold only: nothing', opened: [120, 80], threshold: 10, expected: [] },
    {
      case: 'too few connections to judge: nothing',
      opened: [60, 20],
      threshold: 10,
      expected: [],
    },
  ])('$case', ({ opened, threshold, expected }) => {
    const watch = new BalanceWatch();
    watch.record(0, counters([0, 0]));
    watch.record(10_000, counters(opened as [number, number]));
    const found = watch.outOfBalance(status(), new Set([1]), threshold);
    expect(found.map((f) => [f.server, f.side, f.text])).toEqual(expected);
  });
});

describe('the Imbalance Detection Throughput Minimum', () => {
  const judged = (packetsPerSecond: number | null, minPps: number) => {
    const watch = new BalanceWatch();
    const packets = (n: number) => (packetsPerSecond === null ? undefined : new Map([[1, n]]));
    watch.record(0, counters([0, 0]), packets(0));
    watch.record(10_000, counters([140, 60]), packets((packetsPerSecond ?? 0) * 10));
    return watch.outOfBalance(status(), new Set([1]), 10, minPps).map((f) => f.side);
  };

  it.each([
    {
      case: 'a Target Set above the minimum is judged',
      pps: 25_000,
      min: 20_000,
      sides: ['high', 'low'],
    },
    { case: 'at the minimum, judged', pps: 20_000, min: 20_000, sides: ['high', 'low'] },
    { case: 'below it, not judged', pps: 19_999, min: 20_000, sides: [] },
    {
      case: 'no packets counted (user space): judged on connections alone',
      pps: null,
      min: 20_000,
      sides: ['high', 'low'],
    },
  ])('$case', ({ pps, min, sides }) => {
    expect(judged(pps, min)).toEqual(sides);
  });

  it.each([
    {
      case: 'packets first counted at the last sample: no rate yet, not judged',
      counts: [undefined, undefined, 1_000_000],
      sides: [],
    },
    {
      case: 'first counted midway: the rate from there (100,000/s), judged',
      counts: [undefined, 0, 1_000_000],
      sides: ['high', 'low'],
    },
    {
      case: 'first counted midway at a rate below the minimum: not judged',
      counts: [undefined, 0, 100_000],
      sides: [],
    },
    {
      case: 'counters that went back (a table made anew): no rate, not judged',
      counts: [5_000_000, 6_000_000, 1_000],
      sides: [],
    },
  ])('$case', ({ counts, sides }) => {
    const watch = new BalanceWatch();
    const packets = (n: number | undefined) => (n === undefined ? new Map() : new Map([[1, n]]));
    watch.record(0, counters([0, 0]), packets(counts[0]));
    watch.record(5_000, counters([70, 30]), packets(counts[1]));
    watch.record(15_000, counters([140, 60]), packets(counts[2]));
    expect(watch.outOfBalance(status(), new Set([1]), 10, 20_000).map((f) => f.side)).toEqual(
      sides,
    );
  });

  it('sums a Target Set’s packets over its TSAs', () => {
    const document = testDocument(1, (c) => {
      c.targetSets[0]!.secondary = { address: '192.0.2.110', activeIpfe: 'A1' };
    });
    const tsaPackets = new Map([
      ['192.0.2.100', 5],
      ['192.0.2.110', 7],
      ['192.0.2.101', 11],
    ]);
    expect([...packetsPerTargetSet(document, tsaPackets)]).toEqual([
      [1, 12],
      [2, 11],
    ]);
    expect(packetsPerTargetSet(document, undefined).size).toBe(0);
  });
});
