/**
 * The hash index of one listener's connections (one TSA address, port and protocol):
 * (source address, source port) → binding and slot.
 *
 * At a million connections every random memory access is a cache and TLB miss, so an entry is
 * kept to 8 bytes and holds everything a lookup needs: the address word (an IPv4 address, or a
 * fold of an IPv6 one) and a meta word (in use, IPv6, source port, binding). An IPv4 lookup
 * reads one entry and nothing else. The slot of each entry, needed less often, sits in a
 * parallel array. Linear probing, backward-shift deletion (no tombstones).
 *
 * The index doubles while small, at a load of ½. Past LARGE_INDEX entries it grows at once to
 * hold the table's bound at a load of MAX_LOAD (any size, not a power of two): at a million
 * entries the array is then 11 MB rather than 16, which matters more than the slightly longer
 * probes, because most of its pages then stay in the TLB.
 */

/** Bindings are 13 bits of the meta word. */
export const MAX_INDEXED_BINDINGS = 1 << 13;
const IN_USE = 1 << 30;
const BINDING_SHIFT = 17;
/** In use, IPv6 flag and source port: the part of the meta word that is key. */
const KEY_BITS = IN_USE | 0x1ffff;
const MIN_SIZE = 16;
const LARGE_INDEX = 1 << 16;
const MAX_LOAD = 0.7;
/** Past this many positions a new array is written through once (see `#resize`). */
const PREFAULT_SIZE = 1 << 17;
export const NOT_FOUND = -1;

/** The part of a key beside the address word: IPv6 flag and source port. */
export function portKey(sourcePort: number, v6: boolean): number {
  return (v6 ? 0x10000 : 0) | sourcePort;
}

export class SourceIndex {
  /** The most entries this index will ever hold (the connection table's bound). */
  readonly limit: number;
  #keys: Uint32Array;
  #slots: Uint32Array;
  #size: number;
  #count = 0;
  /** Where the last unsuccessful `find` ended, and for which key (-1: nothing remembered). */
  #vacancy = NOT_FOUND;
  #vacancyWord = 0;
  #vacancyPort = 0;

  constructor(limit: number) {
    this.limit = limit;
    this.#keys = new Uint32Array(2 * MIN_SIZE);
    this.#slots = new Uint32Array(MIN_SIZE);
    this.#size = MIN_SIZE;
  }

  get count(): number {
    return this.#count;
  }

  /**
   * The position of the entry for (word, port), or NOT_FOUND. `sameAddress(slot)` confirms an
   * IPv6 match against the full address; it is not called for IPv4.
   */
  find(word: number, port: number, sameAddress: ((slot: number) => boolean) | null): number {
    const keys = this.#keys;
    const size = this.#size;
    const wanted = IN_USE | port;
    let i = home(word, port, size);
    for (;;) {
      const meta = keys[2 * i + 1] ?? 0;
      if (meta === 0) {
        this.#vacancy = i;
        this.#vacancyWord = word;
        this.#vacancyPort = port;
        return NOT_FOUND;
      }
      if (
        keys[2 * i] === word &&
        (meta & KEY_BITS) === wanted &&
        (sameAddress === null || sameAddress(this.#slots[i] ?? 0))
      ) {
        return i;
      }
      i = i + 1 === size ? 0 : i + 1;
    }
  }

  bindingAt(position: number): number {
    return ((this.#keys[2 * position + 1] ?? 0) >>> BINDING_SHIFT) & (MAX_INDEXED_BINDINGS - 1);
  }

  slotAt(position: number): number {
    return this.#slots[position] ?? 0;
  }

  /** Adds an entry that `find` did not find. */
  add(word: number, port: number, binding: number, slot: number): void {
    if (binding < 0 || binding >= MAX_INDEXED_BINDINGS) {
      throw new RangeError(`binding ${binding} does not fit the index`);
    }
    const size = this.#size;
    if (size < LARGE_INDEX ? 2 * (this.#count + 1) > size : this.#count + 1 > MAX_LOAD * size) {
      const doubled = 2 * size;
      this.#resize(
        doubled < LARGE_INDEX ? doubled : Math.max(doubled, Math.ceil(this.limit / MAX_LOAD)),
      );
    }
    let i = this.#vacancy;
    if (i === NOT_FOUND || word !== this.#vacancyWord || port !== this.#vacancyPort) {
      const n = this.#size;
      i = home(word, port, n);
      while ((this.#keys[2 * i + 1] ?? 0) !== 0) i = i + 1 === n ? 0 : i + 1;
    }
    this.#vacancy = NOT_FOUND;
    this.#keys[2 * i] = word;
    this.#keys[2 * i + 1] = IN_USE | (binding << BINDING_SHIFT) | port;
    this.#slots[i] = slot;
    this.#count++;
  }

  /** Removes the entry of `slot`, whose key is (word, port). */
  remove(word: number, port: number, slot: number): void {
    const keys = this.#keys;
    const slots = this.#slots;
    const size = this.#size;
    this.#vacancy = NOT_FOUND;
    let i = home(word, port, size);
    while (slots[i] !== slot || (keys[2 * i + 1] ?? 0) === 0) {
      if ((keys[2 * i + 1] ?? 0) === 0) throw new Error(`slot ${slot} is not in the index`);
      i = i + 1 === size ? 0 : i + 1;
    }
    // Backward shift: move each following entry of the cluster back into the hole, unless its
    // home lies cyclically in (hole, its position].
    let j = i;
    for (;;) {
      j = j + 1 === size ? 0 : j + 1;
      const meta = keys[2 * j + 1] ?? 0;
      if (meta === 0) break;
      const k = home(keys[2 * j] ?? 0, meta & 0x1ffff, size);
      const homeBetween = i <= j ? k > i && k <= j : k > i || k <= j;
      if (!homeBetween) {
        keys[2 * i] = keys[2 * j] ?? 0;
        keys[2 * i + 1] = meta;
        slots[i] = slots[j] ?? 0;
        i = j;
      }
    }
    keys[2 * i] = 0;
    keys[2 * i + 1] = 0;
    slots[i] = 0;
    this.#count--;
  }

  #resize(size: number): void {
    const oldKeys = this.#keys;
    const oldSlots = this.#slots;
    const keys = new Uint32Array(2 * size);
    const slots = new Uint32Array(size);
    // Written through once, so that each page faults once: a probe reading a never-written
    // page maps the shared zero page, and the insert after it faults again to copy it.
    if (size >= PREFAULT_SIZE) {
      keys.fill(0);
      slots.fill(0);
    }
    for (let p = 0; p < oldSlots.length; p++) {
      const meta = oldKeys[2 * p + 1] ?? 0;
      if (meta === 0) continue;
      const word = oldKeys[2 * p] ?? 0;
      let i = home(word, meta & 0x1ffff, size);
      while ((keys[2 * i + 1] ?? 0) !== 0) i = i + 1 === size ? 0 : i + 1;
      keys[2 * i] = word;
      keys[2 * i + 1] = meta;
      slots[i] = oldSlots[p] ?? 0;
    }
    this.#keys = keys;
    this.#slots = slots;
    this.#size = size;
    this.#vacancy = NOT_FOUND;
  }
}

/**
 * Where a key's probe starts: multiply–xorshift rounds over both words, then the top 24 bits
 * of the hash scaled onto [0, size) by a multiplication (exact in a double for any size the
 * index takes).
 */
function home(word: number, port: number, size: number): number {
  let h = Math.imul(word ^ 0x2c1b3c6d, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ port, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return Math.floor((((h ^ (h >>> 16)) >>> 8) * size) / 16777216);
}
