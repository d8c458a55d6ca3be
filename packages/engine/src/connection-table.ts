import { fmix32, mix32 } from './hash.ts';
import type { IpWords } from './ip.ts';

/**
 * The connection table (SPEC §3.5): key (source IP, source port, TSA, port, protocol) → an
 * entry with its binding (Target Set address × server), peer node group and last-activity time.
 *
 * Layout, chosen for a million entries at well under 200 bytes each and lookups without
 * allocation: entries live in typed arrays indexed by slot; an open-addressing index (linear
 * probing, backward-shift deletion, load ≤ ½) maps a key hash to its slot. Keys are numbers:
 * the source address as four words (IPv4 mapped into IPv6), both ports in one word, and the TSA
 * (a small id) with the protocol in another.
 *
 * Delete Age uses time buckets of one second: an entry sits in the bucket of its deadline
 * (last activity + age). `touch` only stores the time; when the bucket comes due the entry is
 * examined and either expires or moves to the bucket of its new deadline. `expire(now)`
 * therefore examines only entries whose bucket is due, never the whole table; `examined`
 * counts them, so tests can show the cost without a clock.
 *
 * Every entry is also on a doubly-linked list per binding, so the connections of a server that
 * goes offline, or of a binding a new configuration removes, are found without a scan.
 */

export const BUCKET_MS = 1000;
const NONE = -1;
const FREE = 0xffffffff;
/** Record words: ip0 ip1 ip2 ip3 ports scope binding group. */
const REC = 8;
/** Link words: bucketNext bucketPrev bindingNext bindingPrev. */
const LINK = 4;
const INITIAL_CAPACITY = 1024;
const SLOT_BITS = 24;
const SLOTS = 2 ** SLOT_BITS;
const GENERATIONS = 2 ** 29;
export const MAX_TABLE_ENTRIES = SLOTS;

export class ConnectionTable {
  readonly maxEntries: number;
  /** Entries examined by `expire` since the table was created. */
  examined = 0;
  #size = 0;
  #capacity = 0;
  #used = 0; // slots [used, capacity) have never held an entry
  #freeHead = NONE;
  #rec = new Uint32Array(0);
  #links = new Int32Array(0);
  #lastActive = new Float64Array(0);
  #bucketOf = new Float64Array(0);
  #generation = new Uint32Array(0);
  #index = new Int32Array(0);
  #mask = 0;
  #buckets = new Map<number, number>();
  #cursor = Number.NEGATIVE_INFINITY;
  #bindingHead = new Int32Array(0);
  #bindingCount = new Uint32Array(0);
  #ageMs = new Float64Array(0);

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_TABLE_ENTRIES) {
      throw new RangeError(`maxEntries must be an integer from 1 to ${MAX_TABLE_ENTRIES}`);
    }
    this.maxEntries = maxEntries;
    this.#grow(Math.min(INITIAL_CAPACITY, maxEntries));
  }

  get size(): number {
    return this.#size;
  }

  get isFull(): boolean {
    return this.#size >= this.maxEntries;
  }

  /** The slot of the entry with this key, or -1. */
  find(ip: IpWords, ports: number, scope: number): number {
    const w0 = ip[0] ?? 0;
    const w1 = ip[1] ?? 0;
    const w2 = ip[2] ?? 0;
    const w3 = ip[3] ?? 0;
    const index = this.#index;
    const rec = this.#rec;
    const mask = this.#mask;
    let i = keyHash(w0, w1, w2, w3, ports, scope) & mask;
    for (;;) {
      const slot = index[i] ?? NONE;
      if (slot === NONE) return NONE;
      const o = slot * REC;
      if (
        rec[o + 3] === w3 &&
        rec[o + 4] === ports &&
        rec[o + 5] === scope &&
        rec[o + 2] === w2 &&
        rec[o] === w0 &&
        rec[o + 1] === w1
      ) {
        return slot;
      }
      i = (i + 1) & mask;
    }
  }

  /**
   * Adds an entry that `find` did not find; returns its slot, or -1 when the table is at its
   * bound (the caller refuses the connection: an old entry is never dropped to make room).
   */
  insert(
    ip: IpWords,
    ports: number,
    scope: number,
    binding: number,
    group: number,
    now: number,
  ): number {
    if (this.#size >= this.maxEntries) return NONE;
    if (this.#freeHead === NONE && this.#used === this.#capacity) {
      this.#grow(Math.min(this.#capacity * 2, this.maxEntries));
    }
    let slot: number;
    if (this.#freeHead !== NONE) {
      slot = this.#freeHead;
      this.#freeHead = this.#links[slot * LINK] ?? NONE;
    } else {
      slot = this.#used++;
    }
    const o = slot * REC;
    const rec = this.#rec;
    rec[o] = ip[0] ?? 0;
    rec[o + 1] = ip[1] ?? 0;
    rec[o + 2] = ip[2] ?? 0;
    rec[o + 3] = ip[3] ?? 0;
    rec[o + 4] = ports;
    rec[o + 5] = scope;
    rec[o + 6] = binding;
    rec[o + 7] = group >>> 0;
    this.#lastActive[slot] = now;
    this.#indexAdd(slot);
    this.#bindingLink(slot, binding);
    this.#bucketLink(slot, this.#bucketFor(now + this.ageOf(binding)));
    this.#size++;
    return slot;
  }

  remove(slot: number): void {
    const o = slot * REC;
    const binding = this.#rec[o + 6] ?? FREE;
    if (binding === FREE) return;
    this.#indexRemove(slot);
    this.#bindingUnlink(slot, binding);
    this.#bucketUnlink(slot);
    this.#rec[o + 6] = FREE;
    this.#generation[slot] = ((this.#generation[slot] ?? 0) + 1) % GENERATIONS;
    this.#links[slot * LINK] = this.#freeHead;
    this.#freeHead = slot;
    this.#size--;
  }

  /** Records activity: the entry's idle time starts again from `now`. */
  touch(slot: number, now: number): void {
    this.#lastActive[slot] = now;
  }

  /** A public id for the slot's current entry: it never names a later entry in the same slot. */
  idOf(slot: number): number {
    return (this.#generation[slot] ?? 0) * SLOTS + slot;
  }

  /** The slot an id names while its entry exists, else -1. */
  slotOf(id: number): number {
    if (!Number.isSafeInteger(id) || id < 0) return NONE;
    const slot = id % SLOTS;
    if (slot >= this.#used) return NONE;
    if ((this.#rec[slot * REC + 6] ?? FREE) === FREE) return NONE;
    return Math.floor(id / SLOTS) === this.#generation[slot] ? slot : NONE;
  }

  bindingOf(slot: number): number {
    return this.#rec[slot * REC + 6] ?? FREE;
  }

  groupOf(slot: number): number {
    return this.#rec[slot * REC + 7] ?? FREE;
  }

  lastActiveOf(slot: number): number {
    return this.#lastActive[slot] ?? 0;
  }

  /** Open entries of a binding. */
  countOf(binding: number): number {
    return this.#bindingCount[binding] ?? 0;
  }

  ageOf(binding: number): number {
    return this.#ageMs[binding] ?? 0;
  }

  /**
   * Sets the Delete Age of a binding's entries. A longer age needs nothing (entries are looked
   * at when their old deadline comes, and move on); a shorter one moves each of them now.
   */
  setAge(binding: number, ageMs: number): void {
    this.#ensureBinding(binding);
    const before = this.#ageMs[binding] ?? 0;
    this.#ageMs[binding] = ageMs;
    if (ageMs >= before) return;
    this.forEachOf(binding, (slot) => {
      this.#bucketUnlink(slot);
      this.#bucketLink(slot, this.#bucketFor((this.#lastActive[slot] ?? 0) + ageMs));
    });
  }

  /** Calls `visit` for every entry of a binding; `visit` may remove the entry it is given. */
  forEachOf(binding: number, visit: (slot: number) => void): void {
    let slot = this.#bindingHead[binding] ?? NONE;
    while (slot !== NONE) {
      const next = this.#links[slot * LINK + 2] ?? NONE;
      visit(slot);
      slot = next;
    }
  }

  /**
   * Removes every entry idle for at least its Delete Age at `now`, calling `onExpire` for each
   * just before it goes. Examines only the entries of due buckets.
   */
  expire(now: number, onExpire: (slot: number) => void): void {
    const nowBucket = Math.floor(now / BUCKET_MS);
    if (nowBucket < this.#cursor || this.#buckets.size === 0) {
      this.#cursor = Math.max(this.#cursor, nowBucket);
      return;
    }
    const gap = nowBucket - this.#cursor;
    if (gap <= 4 * this.#buckets.size + 64) {
      for (let b = this.#cursor; b <= nowBucket; b++) this.#expireBucket(b, now, onExpire);
    } else {
      const due = [...this.#buckets.keys()].filter((b) => b <= nowBucket).sort((a, b) => a - b);
      for (const b of due) this.#expireBucket(b, now, onExpire);
    }
    this.#cursor = nowBucket;
  }

  #expireBucket(bucket: number, now: number, onExpire: (slot: number) => void): void {
    let slot = this.#buckets.get(bucket) ?? NONE;
    while (slot !== NONE) {
      const next = this.#links[slot * LINK] ?? NONE;
      this.examined++;
      const deadline = (this.#lastActive[slot] ?? 0) + this.ageOf(this.bindingOf(slot));
      if (deadline <= now) {
        onExpire(slot);
        this.remove(slot);
      } else {
        const later = this.#bucketFor(deadline);
        if (later !== bucket) {
          this.#bucketUnlink(slot);
          this.#bucketLink(slot, later);
        }
      }
      slot = next;
    }
  }

  #bucketFor(deadline: number): number {
    return Math.max(Math.floor(deadline / BUCKET_MS), this.#cursor);
  }

  #bucketLink(slot: number, bucket: number): void {
    const links = this.#links;
    const head = this.#buckets.get(bucket) ?? NONE;
    links[slot * LINK] = head;
    links[slot * LINK + 1] = NONE;
    if (head !== NONE) links[head * LINK + 1] = slot;
    this.#buckets.set(bucket, slot);
    this.#bucketOf[slot] = bucket;
  }

  #bucketUnlink(slot: number): void {
    const links = this.#links;
    const next = links[slot * LINK] ?? NONE;
    const prev = links[slot * LINK + 1] ?? NONE;
    if (prev !== NONE) {
      links[prev * LINK] = next;
    } else {
      const bucket = this.#bucketOf[slot] ?? 0;
      if (next !== NONE) this.#buckets.set(bucket, next);
      else this.#buckets.delete(bucket);
    }
    if (next !== NONE) links[next * LINK + 1] = prev;
  }

  #bindingLink(slot: number, binding: number): void {
    this.#ensureBinding(binding);
    const links = this.#links;
    const head = this.#bindingHead[binding] ?? NONE;
    links[slot * LINK + 2] = head;
    links[slot * LINK + 3] = NONE;
    if (head !== NONE) links[head * LINK + 3] = slot;
    this.#bindingHead[binding] = slot;
    this.#bindingCount[binding] = (this.#bindingCount[binding] ?? 0) + 1;
  }

  #bindingUnlink(slot: number, binding: number): void {
    const links = this.#links;
    const next = links[slot * LINK + 2] ?? NONE;
    const prev = links[slot * LINK + 3] ?? NONE;
    if (prev !== NONE) links[prev * LINK + 2] = next;
    else this.#bindingHead[binding] = next;
    if (next !== NONE) links[next * LINK + 3] = prev;
    this.#bindingCount[binding] = (this.#bindingCount[binding] ?? 1) - 1;
  }

  #ensureBinding(binding: number): void {
    if (binding < this.#bindingHead.length) return;
    const size = Math.max(16, 2 ** Math.ceil(Math.log2(binding + 1)));
    const head = new Int32Array(size).fill(NONE);
    head.set(this.#bindingHead);
    const count = new Uint32Array(size);
    count.set(this.#bindingCount);
    const age = new Float64Array(size);
    age.set(this.#ageMs);
    this.#bindingHead = head;
    this.#bindingCount = count;
    this.#ageMs = age;
  }

  #home(slot: number): number {
    const o = slot * REC;
    const rec = this.#rec;
    return (
      keyHash(
        rec[o] ?? 0,
        rec[o + 1] ?? 0,
        rec[o + 2] ?? 0,
        rec[o + 3] ?? 0,
        rec[o + 4] ?? 0,
        rec[o + 5] ?? 0,
      ) & this.#mask
    );
  }

  #indexAdd(slot: number): void {
    const index = this.#index;
    const mask = this.#mask;
    let i = this.#home(slot);
    while ((index[i] ?? NONE) !== NONE) i = (i + 1) & mask;
    index[i] = slot;
  }

  /** Backward-shift deletion: no tombstones, so probe lengths never degrade. */
  #indexRemove(slot: number): void {
    const index = this.#index;
    const mask = this.#mask;
    let i = this.#home(slot);
    while (index[i] !== slot) i = (i + 1) & mask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const other = index[j] ?? NONE;
      if (other === NONE) break;
      const k = this.#home(other);
      // Move `other` back into the hole at i unless its home lies cyclically in (i, j].
      const homeBetween = i <= j ? k > i && k <= j : k > i || k <= j;
      if (!homeBetween) {
        index[i] = other;
        i = j;
      }
    }
    index[i] = NONE;
  }

  #grow(capacity: number): void {
    const rec = new Uint32Array(capacity * REC);
    rec.set(this.#rec);
    rec.fill(FREE, this.#capacity * REC);
    const links = new Int32Array(capacity * LINK);
    links.set(this.#links);
    const lastActive = new Float64Array(capacity);
    lastActive.set(this.#lastActive);
    const bucketOf = new Float64Array(capacity);
    bucketOf.set(this.#bucketOf);
    const generation = new Uint32Array(capacity);
    generation.set(this.#generation);
    this.#rec = rec;
    this.#links = links;
    this.#lastActive = lastActive;
    this.#bucketOf = bucketOf;
    this.#generation = generation;
    this.#capacity = capacity;
    const indexSize = 2 ** Math.ceil(Math.log2(capacity * 2));
    if (indexSize !== this.#index.length) {
      this.#index = new Int32Array(indexSize).fill(NONE);
      this.#mask = indexSize - 1;
      for (let slot = 0; slot < this.#used; slot++) {
        if ((rec[slot * REC + 6] ?? FREE) !== FREE) this.#indexAdd(slot);
      }
    }
  }
}

function keyHash(
  w0: number,
  w1: number,
  w2: number,
  w3: number,
  ports: number,
  scope: number,
): number {
  let h = mix32(0x2c1b3c6d, w3);
  h = mix32(h, ports);
  h = mix32(h, scope);
  h = mix32(h, w2);
  h = mix32(h, w1);
  h = mix32(h, w0);
  return fmix32(h);
}
