import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configurationShape } from './configuration.ts';
import {
  allocatePortRange,
  chancePct,
  deriveConfiguration,
  normalizeFactors,
  normalizeTargetSet,
  portRangeOfSlice,
  portRangesOf,
  savedFactors,
  standbyOf,
  underiveConfiguration,
} from './derive.ts';
import { APP_SERVERS_MAX, FACTOR, INITIATOR_PORTS } from './limits.ts';
import { optionsSchema } from './options.ts';
import type { PortRange } from './network.ts';
import { targetSetSchema } from './target-set.ts';
import { fieldErrorsOf } from './zod-issues.ts';

describe('normalizeFactors', () => {
  it.each([
    [50, 50, 50, 50],
    [1, 2, 33, 67],
    [3, 5, 38, 62], // 37.5 rounds half up
    [0, 7, 0, 100],
    [7, 0, 100, 0],
    [100, 100, 50, 50],
    [1, 1, 50, 50],
    [100, 1, 99, 1],
    [1, 7, 13, 87], // 12.5 rounds half up
  ])('Fm %i / Fc %i is saved as %i / %i', (fm, fcIn, fmOut, fcOut) => {
    expect(normalizeFactors(fm, fcIn)).toEqual({ mpsFactor: fmOut, connectionCountFactor: fcOut });
  });

  it('0 / 0 is a validation error at leastLoad.mpsFactor, so it never reaches normalization', () => {
    const result = targetSetSchema.safeParse({
      number: 1,
      family: 'ipv4',
      leastLoad: { mpsFactor: 0, connectionCountFactor: 0 },
      primary: { address: '10.0.0.100' },
      servers: [{ address: '10.0.0.11' }],
    });
    expect(fieldErrorsOf(result.error!)).toEqual([
      {
        path: 'leastLoad.mpsFactor',
        message: 'MPS Factor and Connection Count Factor cannot both be 0',
      },
    ]);
    expect(normalizeFactors(0, 0)).toEqual({ mpsFactor: 0, connectionCountFactor: 0 });
  });

  it('normalizes the pair of a Least Load Target Set, and keeps a Hash one’s as typed', () => {
    const ts = targetSetSchema.parse({
      number: 1,
      family: 'ipv4',
      leastLoad: { mpsFactor: 1, connectionCountFactor: 2 },
      primary: { address: '10.0.0.100' },
      servers: [{ address: '10.0.0.11' }],
    });
    expect(normalizeTargetSet(ts).leastLoad).toMatchObject({
      mpsFactor: 33,
      connectionCountFactor: 67,
    });
    const hash = { ...ts, algorithm: 'hash' as const };
    expect(normalizeTargetSet(hash).leastLoad).toMatchObject({
      mpsFactor: 1,
      connectionCountFactor: 2,
    });
  });

  const factor = fc.integer({ min: FACTOR.min, max: FACTOR.max });
  const factorPair = fc.tuple(factor, factor).filter(([fm, fcIn]) => fm + fcIn > 0);

  it('always sums to 100, with whole numbers from 0 to 100', () => {
    fc.assert(
      fc.property(factorPair, ([fm, fcIn]) => {
        const n = normalizeFactors(fm, fcIn);
        expect(n.mpsFactor + n.connectionCountFactor).toBe(100);
        expect(Number.isInteger(n.mpsFactor)).toBe(true);
        expect(n.mpsFactor).toBeGreaterThanOrEqual(0);
        expect(n.mpsFactor).toBeLessThanOrEqual(100);
      }),
    );
  });

  it('preserves order: Fm ≥ Fc ⇒ Fm′ ≥ Fc′, and Fm ≤ Fc ⇒ Fm′ ≤ Fc′', () => {
    fc.assert(
      fc.property(factorPair, ([fm, fcIn]) => {
        const n = normalizeFactors(fm, fcIn);
        if (fm >= fcIn) expect(n.mpsFactor).toBeGreaterThanOrEqual(n.connectionCountFactor);
        if (fm <= fcIn) expect(n.mpsFactor).toBeLessThanOrEqual(n.connectionCountFactor);
      }),
    );
  });

  it('Fm′ is 100·Fm/(Fm+Fc) rounded half up, checked in exact integers', () => {
    // round-half-up(x) = n  ⇔  n − ½ ≤ x < n + ½  ⇔  (2n − 1)·s ≤ 200·Fm < (2n + 1)·s
    fc.assert(
      fc.property(factorPair, ([fm, fcIn]) => {
        const s = fm + fcIn;
        const n = normalizeFactors(fm, fcIn).mpsFactor;
        expect((2 * n - 1) * s).toBeLessThanOrEqual(200 * fm);
        expect(200 * fm).toBeLessThan((2 * n + 1) * s);
      }),
    );
  });

  it('is idempotent and depends only on the ratio', () => {
    fc.assert(
      fc.property(factorPair, fc.integer({ min: 2, max: 50 }), ([fm, fcIn], k) => {
        const n = normalizeFactors(fm, fcIn);
        expect(normalizeFactors(n.mpsFactor, n.connectionCountFactor)).toEqual(n);
        expect(normalizeFactors(k * fm, k * fcIn)).toEqual(n);
      }),
    );
  });
});

describe('savedFactors', () => {
  it.each([
    ['leastLoad', 1, 2, { mpsFactor: 33, connectionCountFactor: 67 }],
    ['hash', 1, 2, { mpsFactor: 1, connectionCountFactor: 2 }],
    ['hash', 0, 0, { mpsFactor: 0, connectionCountFactor: 0 }],
    ['leastLoad', 0, 0, null],
    ['hash', 101, 0, null],
    ['leastLoad', Number.NaN, 50, null],
  ] as const)(
    '%s with Fm %d / Fc %d keeps %o',
    (algorithm, mpsFactor, connectionCountFactor, kept) => {
      expect(savedFactors({ algorithm, leastLoad: { mpsFactor, connectionCountFactor } })).toEqual(
        kept,
      );
    },
  );
});

describe('standbyOf', () => {
  const options = (ipfe: Record<string, { address: string } | null>) =>
    optionsSchema.parse({ ipfe });

  it('is the mate when the mate is configured', () => {
    const all = options({
      A1: { address: '10.0.0.201' },
      A2: { address: '10.0.0.202' },
      B1: { address: '10.0.0.203' },
      B2: { address: '10.0.0.204' },
    });
    expect(standbyOf(all, 'A1')).toBe('A2');
    expect(standbyOf(all, 'A2')).toBe('A1');
    expect(standbyOf(all, 'B1')).toBe('B2');
    expect(standbyOf(all, 'B2')).toBe('B1');
  });

  it('is none when the mate is not configured', () => {
    const aOnly = options({ A1: { address: '10.0.0.201' }, B2: { address: '10.0.0.204' } });
    expect(standbyOf(aOnly, 'A1')).toBeNull();
    expect(standbyOf(aOnly, 'B2')).toBeNull();
  });
});

describe('Initiator Port Ranges', () => {
  const slice = (n: number): PortRange => portRangeOfSlice(n);

  it('slices 16384–49151 into 64 ranges of 512 ports', () => {
    expect(slice(0)).toEqual({ start: 16384, end: 16895 });
    expect(slice(1)).toEqual({ start: 16896, end: 17407 });
    expect(slice(APP_SERVERS_MAX - 1)).toEqual({ start: 48640, end: INITIATOR_PORTS.end });
  });

  it('the first server gets 16384–16895', () => {
    expect(allocatePortRange([])).toEqual({ start: 16384, end: 16895 });
  });

  it('the next server gets the next free slice', () => {
    expect(allocatePortRange([slice(0), slice(1), slice(2)])).toEqual(slice(3));
  });

  it('the lowest free slice is reused after a deletion', () => {
    // servers on slices 0–4; the one on slice 1 was deleted, then the one on slice 3
    expect(allocatePortRange([slice(0), slice(2), slice(3), slice(4)])).toEqual(slice(1));
    expect(allocatePortRange([slice(4), slice(0), slice(2)])).toEqual(slice(1));
  });

  it('gives the last slice when only it is free, then nothing', () => {
    const all = Array.from({ length: APP_SERVERS_MAX }, (_, i) => slice(i));
    expect(allocatePortRange(all.slice(0, -1))).toEqual({ start: 48640, end: 49151 });
    expect(allocatePortRange(all)).toBeNull();
  });
});

describe('portRangesOf: the ranges of a configuration given whole', () => {
  const slice = (n: number): PortRange => portRangeOfSlice(n);
  const running = [
    { name: 'mp1', initiatorPortRange: slice(0) },
    { name: 'mp2', initiatorPortRange: slice(1) },
  ];
  const server = (name: string, n?: number) =>
    n === undefined ? { name } : { name, initiatorPortRange: slice(n) };

  it.each([
    [
      'a new server gets the lowest free slice',
      [server('mp1'), server('mp2'), server('new')],
      [0, 1, 2],
    ],
    [
      'a given range is kept, even a taken one (the rules refuse it)',
      [server('mp1', 5), server('new', 5)],
      [5, 5],
    ],
    ['a running server keeps its slice', [server('mp2'), server('mp1')], [1, 0]],
    [
      'a running server keeps its slice before a new one listed first takes a slice',
      [server('new'), server('mp1')],
      [1, 0],
    ],
    [
      'a running server whose slice another was given gets the lowest free one',
      [server('other', 0), server('mp1')],
      [0, 1],
    ],
    ["a deleted server's slice goes to the next new one", [server('mp2'), server('new')], [1, 0]],
    ['two new servers take two slices', [server('a'), server('b')], [0, 1]],
    ['a name that is not a string only gets a new slice', [{ name: 7 }], [0]],
  ])('%s', (_what, servers, slices) => {
    expect(portRangesOf(servers, running)).toEqual(slices.map(slice));
  });

  it('gives null when no slice is left', () => {
    const all = Array.from({ length: APP_SERVERS_MAX }, (_, i) => server(`s${i}`, i));
    expect(portRangesOf([...all, server('one-too-many')], running).at(-1)).toBeNull();
  });
});

describe('chancePct', () => {
  it.each([
    [100, 100, 100],
    [1, 3, 33.3],
    [2, 3, 66.7],
    [1, 7, 14.3],
    [1, 8, 12.5],
    [0, 100, 0],
    [65535, 65536, 100],
    [1, 65536, 0],
  ])('weight %i of %i is %d %', (weight, total, pct) => {
    expect(chancePct(weight, total)).toBe(pct);
  });

  it('is 0 when every weight is 0 (a disabled Target Set)', () => {
    expect(chancePct(0, 0)).toBe(0);
  });
});

describe('deriveConfiguration', () => {
  function stored() {
    return configurationShape.parse({
      options: {
        ipfe: {
          A1: { address: '10.0.0.201' },
          A2: { address: '10.0.0.202' },
          B1: { address: '10.0.0.203' },
        },
      },
      xsiNetworks: [
        { name: 'xsi-v6', cidr: '2001:db8::/64' },
        { name: 'xsi-v4', cidr: '10.0.0.0/24' },
      ],
      appServers: [
        { name: 'mp2', addresses: ['10.0.0.12'], initiatorPortRange: portRangeOfSlice(1) },
        {
          name: 'mp1',
          addresses: ['10.0.0.11', '2001:db8::11'],
          initiatorPortRange: portRangeOfSlice(0),
        },
      ],
      targetSets: [
        {
          number: 2,
          family: 'ipv4',
          primary: { address: '10.0.0.110', activeIpfe: 'B1' },
          servers: [{ address: '10.0.0.12' }],
        },
        {
          number: 1,
          family: 'ipv4',
          leastLoad: { mpsFactor: 1, connectionCountFactor: 2 },
          primary: { address: '10.0.0.100' },
          secondary: { address: '2001:db8::100', activeIpfe: 'A2' },
          servers: [
            { address: '10.0.0.11', secondaryAddress: '2001:db8::11', weight: 100 },
            { address: '10.0.0.12', weight: 200 },
          ],
        },
      ],
    });
  }

  it('names no standby IPFE for an active-active Target Set, whose group all serves', () => {
    const config = stored();
    const options = {
      ...config.options,
      bgp: {
        asn: 65010,
        peers: [{ address: '10.0.0.1', asn: 65000 }],
        bfdIntervalMs: 100,
        bfdMultiplier: 3,
      },
    };
    const groupOf2 = configurationShape.parse({
      ...config,
      options,
      targetSets: config.targetSets.map((ts) =>
        ts.number === 2
          ? {
              ...ts,
              // A1's mate A2 is configured: active/standby, it would be the standby.
              primary: { ...ts.primary, activeIpfe: 'A1' },
              algorithm: 'hash',
              serving: 'activeActive',
              activeActiveIpfes: ['A1', 'B1'],
            }
          : ts,
      ),
    });
    const [one, two] = deriveConfiguration(groupOf2).targetSets;
    expect(two?.primary.standbyIpfe).toBeNull();
    expect(one?.primary.standbyIpfe).toBe('A2');
  });

  it('sorts every list by its identity', () => {
    const doc = deriveConfiguration(stored());
    expect(doc.xsiNetworks.map((n) => n.name)).toEqual(['xsi-v4', 'xsi-v6']);
    expect(doc.appServers.map((s) => s.name)).toEqual(['mp1', 'mp2']);
    expect(doc.targetSets.map((t) => t.number)).toEqual([1, 2]);
  });

  it('saves normalized factors', () => {
    const [ts1] = deriveConfiguration(stored()).targetSets;
    expect(ts1!.leastLoad).toMatchObject({ mpsFactor: 33, connectionCountFactor: 67 });
  });

  it('fills the standby IPFE: the mate when configured, else none', () => {
    const [ts1, ts2] = deriveConfiguration(stored()).targetSets;
    expect(ts1!.primary).toEqual({ address: '10.0.0.100', activeIpfe: 'A1', standbyIpfe: 'A2' });
    expect(ts1!.secondary).toEqual({
      address: '2001:db8::100',
      activeIpfe: 'A2',
      standbyIpfe: 'A1',
    });
    // B2 is not configured
    expect(ts2!.primary).toEqual({ address: '10.0.0.110', activeIpfe: 'B1', standbyIpfe: null });
    expect(ts2!.secondary).toBeNull();
  });

  it('fills each row’s application server, port range and chance of selection', () => {
    const [ts1, ts2] = deriveConfiguration(stored()).targetSets;
    expect(ts1!.servers).toEqual([
      {
        address: '10.0.0.11',
        secondaryAddress: '2001:db8::11',
        description: '',
        weight: 100,
        appServer: 'mp1',
        initiatorPortRange: { start: 16384, end: 16895 },
        chancePct: 33.3,
      },
      {
        address: '10.0.0.12',
        secondaryAddress: null,
        description: '',
        weight: 200,
        appServer: 'mp2',
        initiatorPortRange: { start: 16896, end: 17407 },
        chancePct: 66.7,
      },
    ]);
    expect(ts2!.servers[0]!.chancePct).toBe(100);
  });

  it('gives no server and no port range to a row that is no application server address', () => {
    const config = stored();
    config.targetSets[0]!.servers[0]!.address = '10.0.0.50';
    const ts2 = deriveConfiguration(config).targetSets[1]!;
    expect(ts2.servers[0]).toMatchObject({ appServer: null, initiatorPortRange: null });
  });

  it('underiving gives back the stored configuration, sorted and normalized', () => {
    const config = stored();
    const back = underiveConfiguration(deriveConfiguration(config));
    expect(back.targetSets.map((t) => t.number)).toEqual([1, 2]);
    expect(back.targetSets[1]).toEqual(config.targetSets[0]);
    expect(back.targetSets[0]).toEqual({
      ...config.targetSets[1],
      leastLoad: { ...config.targetSets[1]!.leastLoad, mpsFactor: 33, connectionCountFactor: 67 },
    });
    expect(configurationShape.parse(back)).toEqual(back);
  });

  it('does not change the configuration it is given', () => {
    const config = stored();
    const before = structuredClone(config);
    deriveConfiguration(config);
    expect(config).toEqual(before);
  });
});
