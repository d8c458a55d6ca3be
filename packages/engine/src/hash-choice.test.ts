import { describe, expect, it } from 'vitest';
import { chooseByHash } from './hash-choice.ts';
import { fmix32, hashString } from './hash.ts';
import { buildMaglev } from './maglev.ts';
import { Server } from './server.ts';
import { STATE_CODE, type ServerState } from './server-state.ts';
import type { Member } from './target-set.ts';

function members(spec: [string, number, ServerState][]): Member[] {
  return spec.map(([address, weight, state], i) => {
    const server = new Server(i, address);
    server.code = STATE_CODE[state];
    return { server, weight, secondaryAddress: null, range: null, seed: hashString(address, 7) };
  });
}

describe('chooseByHash', () => {
  it("spreads the overflow of a server's keys over the others in proportion to weight", () => {
    const list = members([
      ['a', 100, 'overloaded'],
      ['b', 100, 'normal'],
      ['c', 300, 'normal'],
    ]);
    // The table as if a were normal: its keys now overflow.
    const table = buildMaglev(list.map((m) => ({ id: m.server.address, weight: m.weight })));
    const got = [0, 0, 0];
    let overflowed = 0;
    for (let k = 0; k < 200_000; k++) {
      const key = fmix32(k);
      if (table.entries[Math.floor((key * table.size) / 4294967296)] !== 0) continue;
      overflowed++;
      const p = chooseByHash(list, table, key, 0);
      got[p] = (got[p] ?? 0) + 1;
    }
    expect(got[0]).toBe(0);
    expect((got[2] ?? 0) / overflowed).toBeCloseTo(0.75, 1);
  });

  it('gives a key the same overflow server every time, and the next one when that is avoided', () => {
    const list = members([
      ['a', 100, 'halting'],
      ['b', 100, 'normal'],
      ['c', 100, 'normal'],
    ]);
    const table = buildMaglev(list.map((m) => ({ id: m.server.address, weight: 100 })));
    const key = fmix32(42);
    const first = chooseByHash(list, table, key, 0);
    expect(chooseByHash(list, table, key, 0)).toBe(first);
    const other = chooseByHash(list, table, key, 1 << first);
    expect(other).not.toBe(first);
    expect(chooseByHash(list, table, key, (1 << 1) | (1 << 2))).toBe(-1);
  });
});
