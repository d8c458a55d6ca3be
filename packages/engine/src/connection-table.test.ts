import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUCKET_MS, ConnectionTable } from './connection-table.ts';
import { newIpWords, parseIp } from './ip.ts';

const ip = (text: string) => {
  const w = newIpWords();
  if (!parseIp(text, w)) throw new Error(text);
  return w;
};
const ports = (source: number, port = 3868) => source * 65536 + port;
const AGE = 600_000;

function table(max = 1000, age = AGE) {
  const t = new ConnectionTable(max);
  t.setAge(0, age);
  t.setAge(1, age);
  return t;
}

describe('ConnectionTable keys', () => {
  it('finds what was inserted, by the whole key', () => {
    const t = table();
    const a = t.insert(ip('10.0.0.1'), ports(40000), 4, 0, -1, 0);
    const b = t.insert(ip('2001:db8::1'), ports(40000), 4, 1, 3, 0);
    expect(t.find(ip('10.0.0.1'), ports(40000), 4)).toBe(a);
    expect(t.find(ip('2001:db8::1'), ports(40000), 4)).toBe(b);
    expect(t.findBinding(ip('2001:db8::1'), ports(40000), 4)).toBe(1);
    expect(t.groupOf(b)).toBe(3);
    // Any part of the key differing: not found.
    expect(t.find(ip('10.0.0.2'), ports(40000), 4)).toBe(-1);
    expect(t.find(ip('10.0.0.1'), ports(40001), 4)).toBe(-1);
    expect(t.find(ip('10.0.0.1'), ports(40000, 3869), 4)).toBe(-1);
    expect(t.find(ip('10.0.0.1'), ports(40000), 5)).toBe(-1);
    expect(t.find(ip('2001:db8::2'), ports(40000), 4)).toBe(-1);
    expect(t.size).toBe(2);
  });

  it('behaves like a map under any sequence of inserts and removes', () => {
    const op = fc.record({
      insert: fc.boolean(),
      source: fc.integer({ min: 0, max: 40 }),
      v6: fc.boolean(),
      port: fc.integer({ min: 0, max: 3 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const t = new ConnectionTable(100_000);
        const model = new Map<string, number>();
        for (const o of ops) {
          const addr = o.v6 ? `2001:db8::${o.source}` : `10.0.0.${o.source}`;
          const key = `${addr}/${o.port}`;
          const found = t.find(ip(addr), ports(o.port), 0);
          expect(found >= 0).toBe(model.has(key));
          if (o.insert && found < 0) model.set(key, t.insert(ip(addr), ports(o.port), 0, 0, -1, 0));
          if (!o.insert && found >= 0) {
            t.remove(found);
            model.delete(key);
          }
        }
        expect(t.size).toBe(model.size);
        for (const [key, slot] of model) {
          const [addr = '', port = '0'] = key.split('/');
          expect(t.find(ip(addr), ports(Number(port)), 0)).toBe(slot);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps every entry while it grows', () => {
    const t = table(100_000);
    for (let i = 0; i < 5000; i++) t.insert(ip(`10.1.${i >> 8}.${i & 255}`), ports(i), 0, 0, -1, 0);
    for (let i = 0; i < 5000; i++) {
      expect(t.find(ip(`10.1.${i >> 8}.${i & 255}`), ports(i), 0)).toBeGreaterThanOrEqual(0);
    }
  });

  it('gives ids that never name a later entry in the same slot', () => {
    const t = table();
    const slot = t.insert(ip('10.0.0.1'), ports(1), 0, 0, -1, 0);
    const id = t.idOf(slot);
    expect(t.slotOf(id)).toBe(slot);
    t.remove(slot);
    expect(t.slotOf(id)).toBe(-1);
    const again = t.insert(ip('10.0.0.2'), ports(2), 0, 0, -1, 0);
    expect(again).toBe(slot);
    expect(t.slotOf(id)).toBe(-1);
    expect(t.slotOf(t.idOf(again))).toBe(again);
    expect(t.slotOf(-1)).toBe(-1);
    expect(t.slotOf(1.5)).toBe(-1);
  });

  it('refuses an entry at its bound and keeps the old ones', () => {
    const t = table(3);
    for (let i = 0; i < 3; i++) expect(t.insert(ip('10.0.0.1'), ports(i), 0, 0, -1, 0)).toBe(i);
    expect(t.isFull).toBe(true);
    expect(t.insert(ip('10.0.0.1'), ports(9), 0, 0, -1, 0)).toBe(-1);
    expect(t.size).toBe(3);
    for (let i = 0; i < 3; i++) expect(t.find(ip('10.0.0.1'), ports(i), 0)).toBe(i);
  });
});

describe('ConnectionTable Delete Age', () => {
  const expireAt = (t: ConnectionTable, now: number) => {
    const gone: number[] = [];
    t.expire(now, (slot) => gone.push(slot));
    return gone;
  };

  it('expires an entry idle for exactly the Delete Age, not a millisecond before', () => {
    const t = table();
    const slot = t.insert(ip('10.0.0.1'), ports(1), 0, 0, -1, 1234);
    expect(expireAt(t, 1234 + AGE - 1)).toEqual([]);
    expect(expireAt(t, 1234 + AGE)).toEqual([slot]);
    expect(t.size).toBe(0);
  });

  it('does not expire an entry touched in between; it expires a Delete Age after the touch', () => {
    const t = table();
    const slot = t.insert(ip('10.0.0.1'), ports(1), 0, 0, -1, 0);
    t.touch(slot, 300_000);
    expect(expireAt(t, AGE)).toEqual([]);
    expect(t.lastActiveOf(slot)).toBe(300_000);
    expect(expireAt(t, 300_000 + AGE - 1)).toEqual([]);
    expect(expireAt(t, 300_000 + AGE)).toEqual([slot]);
  });

  it('with 1,000,000 entries and 10 due, examines those 10 and no others', () => {
    const t = new ConnectionTable(1_000_010);
    t.setAge(0, AGE);
    const w = newIpWords();
    for (let i = 0; i < 10; i++) t.insert(ip('10.0.0.1'), ports(i), 0, 0, -1, 0);
    for (let i = 0; i < 1_000_000; i++) {
      parseIp(`10.2.${(i >> 8) & 255}.${i & 255}`, w);
      t.insert(w, ports(i >> 16), 1, 0, -1, 5 * BUCKET_MS);
    }
    expect(t.size).toBe(1_000_010);
    const before = t.examined;
    expect(expireAt(t, AGE)).toHaveLength(10);
    expect(t.examined - before).toBe(10);
    expect(t.size).toBe(1_000_000);
  }, 30_000);

  it('moves entries when their Delete Age is shortened', () => {
    const t = table();
    const slot = t.insert(ip('10.0.0.1'), ports(1), 0, 0, -1, 0);
    t.setAge(0, 10_000);
    expect(expireAt(t, 10_000)).toEqual([slot]);
  });

  it('catches up after a long silence without walking every second', () => {
    const t = table(1000, 10_000);
    t.insert(ip('10.0.0.1'), ports(1), 0, 0, -1, 0);
    t.insert(ip('10.0.0.1'), ports(2), 0, 0, -1, 1e9);
    expect(expireAt(t, 1e12)).toHaveLength(2);
    expect(t.examined).toBe(2);
  });
});

describe('ConnectionTable binding lists', () => {
  it('visits the entries of one binding, which may remove them', () => {
    const t = table();
    for (let i = 0; i < 5; i++) t.insert(ip('10.0.0.1'), ports(i), 0, i % 2, -1, 0);
    expect(t.countOf(0)).toBe(3);
    expect(t.countOf(1)).toBe(2);
    const seen: number[] = [];
    t.forEachOf(0, (slot) => {
      seen.push(slot);
      t.remove(slot);
    });
    expect(seen.sort()).toEqual([0, 2, 4]);
    expect(t.countOf(0)).toBe(0);
    expect(t.size).toBe(2);
  });
});
