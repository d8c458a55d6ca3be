import { targetSetSchema, type AgentMeasurements, type IpfeSlot } from '@ipfe/schema';
import { describe, expect, it } from 'vitest';
import {
  increase,
  keepSample,
  measurementsView,
  sumCounted,
  type MeasurementSample,
} from './measurement-rates.ts';

describe('increase', () => {
  it.each([
    ['a total that grew', 100, 250, false, 150],
    ['a total that stood still', 100, 100, false, 0],
    ['a total that went down: the agent restarted, and counted this since', 900, 40, false, 40],
    ['a new boot, even with a higher total', 100, 250, true, 250],
    ['a count not counted now', 100, null, false, null],
    ['a count not counted before, without a restart', null, 250, false, null],
    ['a count not counted before, after a restart', null, 250, true, 250],
  ])('%s', (_, before, after, restarted, expected) => {
    expect(increase(before, after, restarted)).toBe(expected);
  });
});

describe('sumCounted', () => {
  it.each([
    [[1, 2, 3], 6],
    [[null, 2, null], 2],
    [[0, null], 0],
    [[null, null], null],
    [[], null],
  ])('%j → %j', (values, expected) => {
    expect(sumCounted(values)).toBe(expected);
  });
});

const window = { windowMs: 60_000, stepMs: 10_000 };
const report = (
  rxBytes: number | null,
  txBytes: number | null = rxBytes,
  number = 1,
): AgentMeasurements['targetSets'][number] => ({
  number,
  rxBytes,
  rxSctpBytes: null,
  rejected: 0,
  unexpectedTcp: null,
  unexpectedSctp: null,
  servers: [{ address: '10.1.0.1', txBytes }],
});
const sample = (
  at: number,
  rxBytes: number | null,
  boot = 'boot-1',
  txBytes = rxBytes,
): MeasurementSample => ({
  at,
  boot,
  measurements: { accounting: true, targetSets: [report(rxBytes, txBytes)] },
});

describe('keepSample', () => {
  it.each([
    ['keeps the first sample', [], 0, [0]],
    ['keeps one a step after the last', [0], 10_000, [0, 10_000]],
    ['skips one within a step of the last', [0], 9_999, [0]],
    [
      'drops what the window has passed, but the one that starts its first interval',
      [0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000],
      75_000,
      [10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 75_000],
    ],
  ])('%s', (_, before, at, kept) => {
    const ring = before.map((t) => sample(t, 0));
    expect(keepSample(ring, sample(at, 0), window).map((s) => s.at)).toEqual(kept);
  });
});

const targetSet = targetSetSchema.parse({
  number: 1,
  family: 'ipv4',
  algorithm: 'hash',
  primary: { address: '10.0.0.100' },
  servers: [{ address: '10.1.0.1' }, { address: '10.1.0.2' }],
});

function view(
  rings: Partial<Record<IpfeSlot, MeasurementSample[]>>,
  latest: Partial<Record<IpfeSlot, AgentMeasurements | null>> = {},
  now = 60_000,
) {
  return measurementsView({
    targetSets: [targetSet],
    accounting: true,
    rings: new Map(Object.entries(rings) as [IpfeSlot, MeasurementSample[]][]),
    latest: new Map(Object.entries(latest) as [IpfeSlot, AgentMeasurements | null][]),
    now,
    window,
  });
}
const rxRates = (v: ReturnType<typeof view>) =>
  v.targetSets[0]!.rates.map((r) => [r.at.slice(14, 19), r.rxBytes]);

describe('measurementsView: the rates per step', () => {
  it.each([
    [
      'bytes per second of each interval, in the step it ends in',
      { A1: [sample(10_000, 0), sample(20_000, 5_000), sample(30_000, 25_000)] },
      [
        ['00:20', 500],
        ['00:30', 2_000],
      ],
    ],
    [
      'an agent restart (its total went down) is what it counted since, not a negative rate',
      { A1: [sample(10_000, 0), sample(20_000, 90_000), sample(30_000, 10_000)] },
      [
        ['00:20', 9_000],
        ['00:30', 1_000],
      ],
    ],
    [
      'a new boot with a higher total is a restart too',
      { A1: [sample(10_000, 50_000), sample(20_000, 60_000, 'boot-2')] },
      [['00:20', 6_000]],
    ],
    [
      'summed over the IPFEs',
      {
        A1: [sample(10_000, 0), sample(20_000, 1_000)],
        A2: [sample(11_000, 0), sample(21_000, 3_000)],
      },
      [['00:20', 400]],
    ],
    [
      'an IPFE that counts nothing adds nothing to one that does',
      {
        A1: [sample(10_000, 0), sample(20_000, 1_000)],
        B1: [sample(10_000, null), sample(20_000, null)],
      },
      [['00:20', 100]],
    ],
    [
      '"not counted" (null) where every IPFE says so',
      {
        A1: [sample(10_000, null), sample(20_000, null)],
        B1: [sample(10_000, null), sample(20_000, null)],
      },
      [['00:20', null]],
    ],
    [
      'a step in which no IPFE ended an interval is left out (a gap, not a zero)',
      { A1: [sample(10_000, 0), sample(40_000, 3_000)] },
      [['00:40', 100]],
    ],
    [
      'intervals that ended before the window are left out',
      { A1: [sample(0, 0), sample(10_000, 1_000), sample(20_000, 2_000)] },
      [['00:20', 100]],
      70_000,
    ],
  ])('%s', (_, rings, expected, now = 60_000) => {
    expect(rxRates(view(rings, {}, now))).toEqual(expected);
  });

  it('gives each server its own rates, by address', () => {
    const v = view({ A1: [sample(10_000, 0, 'b', 0), sample(20_000, 0, 'b', 20_000)] });
    expect(v.targetSets[0]!.servers).toEqual([
      {
        address: '10.1.0.1',
        txBytes: null,
        rates: [{ at: '1970-01-01T00:00:20.000Z', txBytes: 2_000 }],
      },
      { address: '10.1.0.2', txBytes: null, rates: [] },
    ]);
  });

  it('counts a Target Set an agent did not report before from zero', () => {
    const before: MeasurementSample = {
      at: 10_000,
      boot: 'b',
      measurements: { accounting: true, targetSets: [] },
    };
    expect(rxRates(view({ A1: [before, sample(20_000, 500, 'b')] }))).toEqual([['00:20', 50]]);
  });
});

describe('measurementsView: the current totals', () => {
  const measurements = (rxBytes: number | null, txBytes: number | null = rxBytes) => ({
    accounting: true,
    targetSets: [report(rxBytes, txBytes)],
  });

  it('sums the totals of the IPFEs that report them, "not counted" where all say null', () => {
    const v = view({}, { A1: measurements(1_000, 600), A2: measurements(500, null), B1: null });
    expect(v.reporting).toEqual(['A1', 'A2']);
    expect(v.targetSets[0]).toMatchObject({
      number: 1,
      tsa: '10.0.0.100',
      totals: {
        rxBytes: 1_500,
        rxSctpBytes: null,
        rejected: 0,
        unexpectedTcp: null,
        unexpectedSctp: null,
      },
      servers: [
        { address: '10.1.0.1', txBytes: 600 },
        { address: '10.1.0.2', txBytes: null },
      ],
    });
  });

  it('says "not counted" for every measurement when no agent reports any', () => {
    const v = view({}, { A1: null });
    expect(v.reporting).toEqual([]);
    expect(Object.values(v.targetSets[0]!.totals)).toEqual([null, null, null, null, null]);
  });

  it('lists the Target Sets of the configuration, not those of an agent running another', () => {
    const other = { accounting: true, targetSets: [report(7, 7, 9)] };
    const v = view({}, { A1: other });
    expect(v.targetSets.map((t) => t.number)).toEqual([1]);
    expect(v.targetSets[0]!.totals.rxBytes).toBeNull();
  });
});
