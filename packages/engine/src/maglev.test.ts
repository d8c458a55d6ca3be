import { TARGET_SET_SERVERS, WEIGHT } from '@ipfe/schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fmix32 } from './hash.ts';
import {
  buildMaglev,
  isPrime,
  maglevLookup,
  maglevQuotas,
  maglevTableSize,
  NO_SERVER,
  type MaglevServer,
} from './maglev.ts';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `10.0.${i >> 8}.${i & 255}`);

/** Weight sets of 1–32 servers with at least one non-zero weight. */
const weightSets = fc
  .array(fc.integer({ min: 0, max: WEIGHT.max }), {
    minLength: 1,
    maxLength: TARGET_SET_SERVERS.max,
  })
  .filter((w) => w.some((x) => x > 0));

/**
 * A Target Set of 2–32 servers within the schema's limits and one of them to remove: weights of
 * one scale (1–10 as an operator types them, 1–1000, up to the maximum), or of mixed scales,
 * where one server may outweigh all the others together.
 */
const removals = fc
  .oneof(
    fc.constantFrom(10, 1000, WEIGHT.max).map((max) => fc.integer({ min: 1, max })),
    fc.constant(
      fc.oneof(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: WEIGHT.max - 5000, max: WEIGHT.max }),
        fc.integer({ min: WEIGHT.min, max: WEIGHT.max }),
      ),
    ),
  )
  .chain((weight) =>
    fc.integer({ min: 2, max: TARGET_SET_SERVERS.max }).chain((n) =>
      fc.record({
        weights: fc.array(weight, { minLength: n, maxLength: n }),
        removed: fc.integer({ min: 0, max: n - 1 }),
        // The addresses make the permutations: any addresses, not one numbering.
        addresses: fc.uniqueArray(fc.oneof(fc.ipV4(), fc.ipV6()), { minLength: n, maxLength: n }),
      }),
    ),
  );

/**
 * A server that outweighs the 1–31 others together 256 times or more (they hold 255 entries or
 * fewer), and its removal.
 */
const giantRemovals = fc.integer({ min: 1, max: TARGET_SET_SERVERS.max - 1 }).chain((n) =>
  fc
    .array(fc.integer({ min: 0, max: Math.floor(255 / n) }), { minLength: n, maxLength: n })
    .filter((lights) => lights.some((w) => w > 0))
    .chain((lights) =>
      fc.record({
        lights: fc.constant(lights),
        giant: fc.integer({ min: 256 * lights.reduce((a, b) => a + b, 0), max: WEIGHT.max }),
        at: fc.integer({ min: 0, max: n }),
        addresses: fc.uniqueArray(fc.oneof(fc.ipV4(), fc.ipV6()), {
          minLength: n + 1,
          maxLength: n + 1,
        }),
      }),
    )
    .map(({ lights, giant, at, addresses }) => ({
      weights: [...lights.slice(0, at), giant, ...lights.slice(at)],
      removed: at,
      addresses,
    })),
);

/** removals, and sets with a giant (above) with any one of their servers removed. */
const anyRemovals = fc.oneof(
  removals,
  giantRemovals.chain((r) =>
    fc.integer({ min: 0, max: r.weights.length - 1 }).map((removed) => ({ ...r, removed })),
  ),
);

interface Removal {
  readonly weights: readonly number[];
  readonly removed: number;
  /** The servers' addresses; 10.0.0.0, 10.0.0.1, … when not given. */
  readonly addresses?: readonly string[];
}

/** Every weight set and removal that ever moved more than 1 % of the other servers' keys. */
const everFailed: Removal[] = [
  { weights: [65535, ...Array<number>(31).fill(1)], removed: 0 },
  { weights: [65535, ...Array<number>(31).fill(3)], removed: 0 },
  { weights: [65535, 1, 1], removed: 0 },
  { weights: [43660, ...Array<number>(31).fill(1)], removed: 0 },
  { weights: [7247, ...Array<number>(31).fill(1)], removed: 0 },
  { weights: [13105, 1, 1], removed: 0 },
  { weights: [9359, 1, 1, 1], removed: 0 },
  { weights: [21823, 2, 2], removed: 0 },
  {
    weights: [
      779, 819, 1, 6, 3, 4, 60005, 0, 37, 58, 3, 3, 14761, 6, 60331, 82, 37, 1, 0, 65411, 6, 0, 1,
      999, 2, 62497, 0, 5058, 60144, 64149,
    ],
    removed: 28,
  },
  {
    weights: [8, 4, 9],
    removed: 1,
    addresses: ['188.7.246.213', '207.89.123.60', '251.66.255.6'],
  },
  {
    weights: [9, 7, 3, 4, 6, 8, 7, 2, 3, 3, 3, 10, 2, 5],
    removed: 13,
    addresses: [
      '251.0.251.81',
      '110.87.194.121',
      '88.87.6.4',
      '251.247.59.255',
      '252.63.156.36',
      '215.1.6.157',
      '29.61.218.212',
      '254.166.21.95',
      '252.65.177.4',
      '161.162.0.201',
      '117.3.111.1',
      '239.162.60.64',
      '99.36.101.0',
      '0.253.218.88',
    ],
  },
  {
    weights: [1, 9, 6, 3, 2, 3, 7, 1, 4, 4, 8, 9, 9],
    removed: 11,
    addresses: [
      '69.207.226.104',
      '225.6.88.253',
      '191.141.178.165',
      '248.188.188.196',
      '177.3.33.2',
      '114.1.42.65',
      '5.78.248.1',
      '107.181.71.137',
      '151.6.23.70',
      '3.2.21.2',
      '250.2.92.6',
      '1.187.192.53',
      '7.248.0.164',
    ],
  },
  {
    weights: [4, 4, 4, 9, 3, 8, 4, 9, 7, 3, 8, 4, 8],
    removed: 9,
    addresses: [
      '188.4.228.1',
      '3.67.1.7',
      '4.101.5.75',
      '38.249.63.117',
      '6.110.158.4',
      '137.1.250.222',
      '192.40.202.4',
      '0.238.41.143',
      '197.254.253.7',
      '252.208.4.33',
      '250.4.3.190',
      '222.1.205.185',
      '169.219.115.243',
    ],
  },
  { weights: [1, 2, 5, 58, 10, 0, 0, 2, 2, 2, 60767], removed: 10 },
  {
    weights: [49430, 39, 2, 8],
    removed: 0,
    addresses: ['160.239.250.132', '203.248.58.178', '160.6.223.250', '248.7.47.92'],
  },
  { weights: [1, 46704, 15], removed: 1 },
];

const serversOf = (
  weights: readonly number[],
  addresses: readonly string[] = ids(weights.length),
): MaglevServer[] => addresses.map((id, i) => ({ id, weight: weights[i] ?? 0 }));

/**
 * The share of the other servers' table entries (= of their keys) that change server when
 * server `removed` leaves the list; null when the others have no entries.
 */
function movedShare(removal: Removal): number | null {
  const { moved, others } = movedEntries(removal);
  return others === 0 ? null : moved / others;
}

/** The other servers' entries, and how many of them change server, when `removed` leaves. */
function movedEntries({ weights, removed, addresses }: Removal): { moved: number; others: number } {
  const servers = serversOf(weights, addresses);
  const rest = servers.filter((_, i) => i !== removed);
  const before = buildMaglev(servers);
  const after = buildMaglev(rest);
  let others = 0;
  let moved = 0;
  for (let e = 0; e < before.size; e++) {
    const owner = before.entries[e] ?? NO_SERVER;
    if (owner === removed || owner === NO_SERVER) continue;
    others++;
    if (rest[after.entries[e] ?? NO_SERVER]?.id !== servers[owner]?.id) moved++;
  }
  return { moved, others };
}

describe('table size', () => {
  it('is a prime of at least 100 entries per server', () => {
    for (const n of [1, 2, 3, 31, 32, 100, 655, 700, 1000]) {
      const m = maglevTableSize(n);
      expect(isPrime(m), `M for ${n}`).toBe(true);
      expect(m).toBeGreaterThanOrEqual(100 * n);
    }
    expect(maglevTableSize(32)).toBe(65537);
  });

  it('refuses a table size that is not a prime', () => {
    expect(() => buildMaglev([{ id: 'a', weight: 1 }], 65536)).toThrow(/not a prime/);
  });
});

describe('weighted Maglev table', () => {
  it('gives every server a share of entries within 1 point of its weight share', () => {
    fc.assert(
      fc.property(weightSets, (weights) => {
        const servers = ids(weights.length).map((id, i) => ({ id, weight: weights[i] ?? 0 }));
        const table = buildMaglev(servers);
        const total = weights.reduce((a, b) => a + b, 0);
        let filled = 0;
        servers.forEach((s, i) => {
          const share = (table.counts[i] ?? 0) / table.size;
          expect(Math.abs(share - s.weight / total)).toBeLessThanOrEqual(0.01);
          filled += table.counts[i] ?? 0;
        });
        expect(filled).toBe(table.size);
      }),
      { numRuns: 60 },
    );
  }, 30_000);

  it('gives a server of weight 0 no entries', () => {
    fc.assert(
      fc.property(weightSets, (weights) => {
        const servers = ids(weights.length).map((id, i) => ({ id, weight: weights[i] ?? 0 }));
        const table = buildMaglev(servers);
        servers.forEach((s, i) => {
          if (s.weight === 0) expect(table.counts[i]).toBe(0);
        });
        expect(table.entries.includes(NO_SERVER)).toBe(false);
      }),
      { numRuns: 30 },
    );
  });

  it('leaves the table empty when every weight is 0', () => {
    const table = buildMaglev([{ id: 'a', weight: 0 }]);
    expect(table.entries.every((e) => e === NO_SERVER)).toBe(true);
  });

  it('maps the same key to the same server while the table is unchanged', () => {
    const servers = ids(7).map((id, i) => ({ id, weight: 100 + i }));
    const table = buildMaglev(servers);
    const again = buildMaglev(servers.map((s) => ({ ...s })));
    expect(again.entries).toEqual(table.entries);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (key) => {
        const first = maglevLookup(table, key);
        expect(maglevLookup(table, key)).toBe(first);
        expect(maglevLookup(again, key)).toBe(first);
      }),
    );
  });

  it("removing one of N servers moves only that server's keys plus at most 1 % of the others", () => {
    fc.assert(
      fc.property(anyRemovals, (removal) => {
        const share = movedShare(removal);
        if (share !== null) expect(share).toBeLessThanOrEqual(0.01);
      }),
      { numRuns: 25, examples: everFailed.map((example) => [example]) },
    );
  }, 60_000);

  it("moves at most 1 % of the other servers' keys for every weight set that ever moved more", () => {
    // Before issue 16 (turns paced by quota, o + k·skip permutations) the first eight moved
    // 4.8–51.6 % of the other servers' keys, and [8, 4, 9] 7.56 % and the next 3.28 %: two of
    // the servers' skips had a small ratio. With turns by weight the ninth still moved 1.008 %
    // (skips again); with o + g^(σ+k) the last two 7.52 % and 3.79 %: two servers with one
    // origin (decision 002).
    for (const removal of everFailed) {
      expect(movedShare(removal), JSON.stringify(removal)).toBeLessThanOrEqual(0.01);
    }
  });

  it("moves none of the other servers' keys when a server 256 times their weight leaves", () => {
    // Interleaved with the giant's turns, the others' few entries lay deep down their
    // permutations, and one of them moving was over 1 % (decision 002): before the giant rule the
    // first two moved 1 of 88 and 1 of 65 entries, the third 1 of 22.
    const examples: Removal[] = [
      { weights: [1, 2, 5, 58, 10, 0, 0, 2, 2, 2, 60767], removed: 10 },
      {
        weights: [49430, 39, 2, 8],
        removed: 0,
        addresses: ['160.239.250.132', '203.248.58.178', '160.6.223.250', '248.7.47.92'],
      },
      { weights: [1, 46704, 15], removed: 1 },
    ];
    for (const removal of examples) {
      expect(movedEntries(removal).moved, JSON.stringify(removal)).toBe(0);
    }
    fc.assert(
      fc.property(giantRemovals, (removal) => {
        expect(movedEntries(removal).moved).toBe(0);
      }),
      { numRuns: 25 },
    );
  }, 30_000);

  it('builds the same table for a server at weight 0 as for the list without it', () => {
    fc.assert(
      fc.property(anyRemovals, ({ weights, removed, addresses }) => {
        const servers = serversOf(weights, addresses);
        const zeroed = buildMaglev(
          servers.map((s, i) => (i === removed ? { ...s, weight: 0 } : s)),
        );
        const rest = servers.filter((_, i) => i !== removed);
        const without = buildMaglev(rest);
        let differing = 0;
        for (let e = 0; e < zeroed.size; e++) {
          if (servers[zeroed.entries[e] ?? 0]?.id !== rest[without.entries[e] ?? 0]?.id)
            differing++;
        }
        expect(differing).toBe(0);
      }),
      { numRuns: 15 },
    );
  }, 30_000);

  it('spreads keys over servers in proportion to weight', () => {
    const servers = ids(3).map((id, i) => ({ id, weight: [1, 2, 1][i] ?? 1 }));
    const table = buildMaglev(servers);
    const hits = [0, 0, 0];
    const keys = 200_000;
    for (let k = 0; k < keys; k++) {
      const s = maglevLookup(table, fmix32(k));
      hits[s] = (hits[s] ?? 0) + 1;
    }
    expect((hits[0] ?? 0) / keys).toBeCloseTo(0.25, 2);
    expect((hits[1] ?? 0) / keys).toBeCloseTo(0.5, 2);
  });
});

describe('maglevQuotas', () => {
  it('sums to the table size by largest remainder', () => {
    expect([...maglevQuotas([1, 1, 1], 7)]).toEqual([3, 2, 2]);
    expect([...maglevQuotas([0, 5], 11)]).toEqual([0, 11]);
    expect([...maglevQuotas([0, 0], 11)]).toEqual([0, 0]);
  });
});
