import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_INDEXED_BINDINGS, NOT_FOUND, portKey, SourceIndex } from './source-index.ts';

describe('SourceIndex', () => {
  it('finds an entry by address word and source port, with its binding and slot', () => {
    const index = new SourceIndex(1_000_000);
    index.find(0x0a000001, portKey(40000, false), null);
    index.add(0x0a000001, portKey(40000, false), 4321, 7);
    const at = index.find(0x0a000001, portKey(40000, false), null);
    expect(at).not.toBe(NOT_FOUND);
    expect(index.bindingAt(at)).toBe(4321);
    expect(index.slotAt(at)).toBe(7);
    expect(index.find(0x0a000001, portKey(40001, false), null)).toBe(NOT_FOUND);
    expect(index.find(0x0a000001, portKey(40000, true), null)).toBe(NOT_FOUND);
    expect(index.find(0x0a000002, portKey(40000, false), null)).toBe(NOT_FOUND);
  });

  it('asks the caller to confirm IPv6 matches, so that two addresses with one fold stay apart', () => {
    const index = new SourceIndex(1_000_000);
    index.add(99, portKey(1, true), 1, 10);
    index.add(99, portKey(1, true), 2, 11);
    const slotIs = (slot: number) => (s: number) => s === slot;
    expect(index.slotAt(index.find(99, portKey(1, true), slotIs(11)))).toBe(11);
    expect(index.slotAt(index.find(99, portKey(1, true), slotIs(10)))).toBe(10);
    expect(index.find(99, portKey(1, true), slotIs(12))).toBe(NOT_FOUND);
  });

  it('holds its limit once large (a size that is not a power of two), through removals', () => {
    const limit = 150_000;
    const index = new SourceIndex(limit);
    const word = (i: number) => (Math.imul(i, 0x9e3779b1) >>> 0) % 5000;
    const port = (i: number) => i % 65536;
    let wrong = 0;
    for (let i = 0; i < limit; i++) {
      if (index.find(word(i), portKey(port(i), false), null) !== NOT_FOUND) wrong++;
      index.add(word(i), portKey(port(i), false), i % MAX_INDEXED_BINDINGS, i);
    }
    for (let i = 0; i < limit; i += 2) index.remove(word(i), portKey(port(i), false), i);
    expect(index.count).toBe(limit / 2);
    for (let i = 0; i < limit; i++) {
      const at = index.find(word(i), portKey(port(i), false), null);
      if (i % 2 === 0 ? at !== NOT_FOUND : index.slotAt(at) !== i) wrong++;
    }
    expect(wrong).toBe(0);
  });

  it('refuses a binding that does not fit its 13 bits', () => {
    expect(() => new SourceIndex(1_000_000).add(1, 1, MAX_INDEXED_BINDINGS, 0)).toThrow(
      /does not fit/,
    );
  });

  it('behaves like a map under any sequence of adds and removes, through growth', () => {
    const op = fc.record({
      add: fc.boolean(),
      // Few distinct words and ports, so that clusters form and wrap around.
      word: fc.integer({ min: 0, max: 30 }),
      port: fc.integer({ min: 0, max: 20 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 500 }), (ops) => {
        const index = new SourceIndex(1_000_000);
        const model = new Map<string, { binding: number; slot: number }>();
        let nextSlot = 0;
        for (const o of ops) {
          const key = `${o.word}/${o.port}`;
          const at = index.find(o.word, portKey(o.port, false), null);
          expect(at !== NOT_FOUND).toBe(model.has(key));
          if (o.add && at === NOT_FOUND) {
            const entry = { binding: nextSlot % MAX_INDEXED_BINDINGS, slot: nextSlot++ };
            index.add(o.word, portKey(o.port, false), entry.binding, entry.slot);
            model.set(key, entry);
          } else if (!o.add && at !== NOT_FOUND) {
            index.remove(o.word, portKey(o.port, false), index.slotAt(at));
            model.delete(key);
          }
        }
        expect(index.count).toBe(model.size);
        for (const [key, entry] of model) {
          const [word = 0, port = 0] = key.split('/').map(Number);
          const at = index.find(word, portKey(port, false), null);
          expect(index.slotAt(at)).toBe(entry.slot);
          expect(index.bindingAt(at)).toBe(entry.binding);
        }
      }),
      { numRuns: 100 },
    );
  });
});
