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
      }),
    ),
  );

/** Every weight set and removal that ever moved more than 1 % of the other servers' keys. */
const everFailed: { weights: number[]; removed: number }[] = [
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
];

const serversOf = (weights: readonly number[]): MaglevServer[] =>
  ids(weights.length).map((id, i) => ({ id, weight: weights[i] ?? 0 }));

/**
 * The share of the other servers' table entries (= of their keys) that change server when
 * server `removed` leaves the list; null when the others have no entries.
 */
function movedShare(weights: readonly number[], removed: number): number | null {
  const servers = serversOf(weights);
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
  return others === 0 ? null : moved / others;
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
      fc.property(removals, ({ weights, removed }) => {
        const share = movedShare(weights, removed);
        if (share !== null) expect(share).toBeLessThanOrEqual(0.01);
      }),
      { numRuns: 25, examples: everFailed.map((example) => [example]) },
    );
  }, 60_000);

  it("moves at most 1 % of the other servers' keys for every weight set that ever moved more", () => {
    // The first eight moved 4.8–51.6 % of the other servers' keys with turns paced by quota (the
    // construction before issue 16); the last 1.008 % with o + k·skip permutations (decision 002).
    for (const { weights, removed } of everFailed) {
      expect(movedShare(weights, removed), JSON.stringify(weights)).toBeLessThanOrEqual(0.01);
    }
  });

  it('builds the same table for a server at weight 0 as for the list without it', () => {
    fc.assert(
      fc.property(removals, ({ weights, removed }) => {
        const servers = serversOf(weights);
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
