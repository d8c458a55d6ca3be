import { fmix32 } from './hash.ts';
import { isIpv4Mapped, type IpWords } from './ip.ts';
import { MAX_INDEXED_BINDINGS, NOT_FOUND, portKey, SourceIndex } from './source-index.ts';

/**
 * The connection table (SPEC §3.5): key (source IP, source port, TSA, port, protocol) → an
 * entry with its binding (Target Set address × server), peer node group and last-activity time.
 *
 * Layout, chosen for a million entries at well under 200 bytes each and for lookups that touch
 * as little memory as possible (at this size every random access is a cache and TLB miss):
 *
 * - Keys are numbers: the source address as four words (IPv4 mapped into IPv6), both ports in
 *   one word, and a scope (Target Set, primary/secondary address, protocol).
 * - Each listener (scope × destination port) has its own hash index (source-index.ts) from
 *   (source address, source port) to binding and slot, 8 bytes per entry: an IPv4 lookup reads
 *   one index entry and nothing else; an IPv6 one also checks the entry's record.
 * - Each entry's record is 64 bytes, in one buffer read through three views: uint32 words 0–3
 *   source address, 4 ports, 5 scope byte, 6 binding + 1, 7 group, 8 generation; int32 word 9
 *   bucket, 10–13 links (bucket next/prev, binding next/prev); float64 at words 14–15 last
 *   activity.
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
/** Record word 6 holds binding + 1, so that fresh (zeroed) memory reads as free. */
const FREE = 0;
export const NO_BINDING = -1;
const REC = 16;
const PORTS = 4;
const SCOPE = 5;
const BINDING = 6;
const GROUP = 7;
const GEN = 8;
const BUCKET = 9;
const BUCKET_NEXT = 10;
const BUCKET_PREV = 11;
const BINDING_NEXT = 12;
const BINDING_PREV = 13;
const REC_F64 = REC / 2;
const LAST_ACTIVE = 7; // float64 index within a record: bytes 56–63
const INITIAL_CAPACITY = 1024;
const LARGE_TABLE = 65_536;
const SLOTS = 2 ** 24;
const GENERATIONS = 2 ** 29;
export const MAX_TABLE_ENTRIES = SLOTS - 1;
/** Scopes the caller passes are 7 bits; the table adds the IPv6 flag as the low bit. */
export const MAX_SCOPE = 127;
export const MAX_BINDINGS = MAX_INDEXED_BINDINGS;

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
  #times = new Float64Array(0);
  /** Hash indexes by listener: scope × 65536 + destination port. */
  #indexes = new Map<number, SourceIndex>();
  #lastListener = -1;
  #lastIndex: SourceIndex | undefined = undefined;
  /** The IPv6 address an index probe confirms against records. */
  #wanted: IpWords | null = null;
  readonly #sameAddress = (slot: number): boolean => {
    const ip = this.#wanted;
    const o = slot * REC;
    const rec = this.#rec;
    return (
      ip !== null &&
      rec[o] === ip[0] &&
      rec[o + 1] === ip[1] &&
      rec[o + 2] === ip[2] &&
      rec[o + 3] === ip[3]
    );
  };
  #buckets = new BucketHeads();
  #cursor = Number.NEGATIVE_INFINITY;
  /** Buckets are stored relative to the first one, as int32 seconds (±68 years). */
  #bucketBase: number | null = null;
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

  /** The index of a listener; created when `create`, else undefined when it has no entries. */
  #indexOf(listener: number, create: boolean): SourceIndex | undefined {
    if (listener === this.#lastListener && (this.#lastIndex !== undefined || !create)) {
      return this.#lastIndex;
    }
    let index = this.#indexes.get(listener);
    if (index === undefined && create) {
      index = new SourceIndex(this.maxEntries);
      this.#indexes.set(listener, index);
    }
    this.#lastListener = listener;
    this.#lastIndex = index;
    return index;
  }

  /** The key's position in its listener's index (left in #lastIndex), or NOT_FOUND. */
  #probe(ip: IpWords, ports: number, scope: number): number {
    const index = this.#indexOf(scope * 65536 + (ports & 0xffff), false);
    if (index === undefined) return NONE;
    if (isIpv4Mapped(ip)) return index.find(ip[3] ?? 0, portKey(ports >>> 16, false), null);
    this.#wanted = ip;
    return index.find(foldAddress(ip), portKey(ports >>> 16, true), this.#sameAddress);
  }

  /** The slot of the entry with this key, or -1. */
  find(ip: IpWords, ports: number, scope: number): number {
    const position = this.#probe(ip, ports, scope);
    return position === NOT_FOUND ? NONE : (this.#lastIndex?.slotAt(position) ?? NONE);
  }

  /** The binding of the entry with this key, or -1: for IPv4, from the index alone. */
  findBinding(ip: IpWords, ports: number, scope: number): number {
    const position = this.#probe(ip, ports, scope);
    return position === NOT_FOUND ? NONE : (this.#lastIndex?.bindingAt(position) ?? NONE);
  }

  /** `findBinding` for an IPv4 source given as a number (see `parseIpv4`). */
  findBindingV4(address: number, ports: number, scope: number): number {
    const index = this.#indexOf(scope * 65536 + (ports & 0xffff), false);
    if (index === undefined) return NONE;
    const position = index.find(address, portKey(ports >>> 16, false), null);
    return position === NOT_FOUND ? NONE : index.bindingAt(position);
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
    if (binding < 0 || binding >= MAX_BINDINGS) throw new RangeError(`binding ${binding}`);
    if (this.#freeHead === NONE && this.#used === this.#capacity) {
      // Doubling while small; past LARGE_TABLE straight to the bound, which costs only address
      // space until used (fresh memory is zero, and zero reads as free) and spares a big table
      // its copies, index rebuilds and page faults on the way up.
      const doubled = this.#capacity * 2;
      this.#grow(doubled > LARGE_TABLE ? this.maxEntries : Math.min(doubled, this.maxEntries));
    }
    let slot: number;
    if (this.#freeHead !== NONE) {
      slot = this.#freeHead;
      this.#freeHead = this.#links[slot * REC + BUCKET_NEXT] ?? NONE;
    } else {
      slot = this.#used++;
    }
    const v6 = isIpv4Mapped(ip) ? 0 : 1;
    const scopeByte = (scope << 1) | v6;
    const index = this.#indexOf(scope * 65536 + (ports & 0xffff), true);
    const o = slot * REC;
    const rec = this.#rec;
    rec[o] = ip[0] ?? 0;
    rec[o + 1] = ip[1] ?? 0;
    rec[o + 2] = ip[2] ?? 0;
    rec[o + 3] = ip[3] ?? 0;
    rec[o + PORTS] = ports;
    rec[o + SCOPE] = scopeByte;
    rec[o + BINDING] = binding + 1;
    rec[o + GROUP] = group >>> 0;
    this.#times[slot * REC_F64 + LAST_ACTIVE] = now;
    index?.add(
      v6 === 0 ? (ip[3] ?? 0) : foldAddress(ip),
      portKey(ports >>> 16, v6 === 1),
      binding,
      slot,
    );
    this.#bindingLink(slot, binding);
    this.#bucketLink(slot, this.#bucketFor(now + this.ageOf(binding)));
    this.#size++;
    return slot;
  }

  remove(slot: number): void {
    const o = slot * REC;
    const rec = this.#rec;
    const stored = rec[o + BINDING] ?? FREE;
    if (stored === FREE) return;
    const binding = stored - 1;
    this.#unindex(slot);
    this.#bindingUnlink(slot, binding);
    this.#bucketUnlink(slot);
    rec[o + BINDING] = FREE;
    rec[o + GEN] = ((rec[o + GEN] ?? 0) + 1) % GENERATIONS;
    this.#links[o + BUCKET_NEXT] = this.#freeHead;
    this.#freeHead = slot;
    this.#size--;
  }

  /** Records activity: the entry's idle time starts again from `now`. */
  touch(slot: number, now: number): void {
    this.#times[slot * REC_F64 + LAST_ACTIVE] = now;
  }

  /** A public id for the slot's current entry: it never names a later entry in the same slot. */
  idOf(slot: number): number {
    return (this.#rec[slot * REC + GEN] ?? 0) * SLOTS + slot;
  }

  /** The slot an id names while its entry exists, else -1. */
  slotOf(id: number): number {
    if (!Number.isSafeInteger(id) || id < 0) return NONE;
    const slot = id % SLOTS;
    if (slot >= this.#used) return NONE;
    if ((this.#rec[slot * REC + BINDING] ?? FREE) === FREE) return NONE;
    return Math.floor(id / SLOTS) === this.#rec[slot * REC + GEN] ? slot : NONE;
  }

  bindingOf(slot: number): number {
    return (this.#rec[slot * REC + BINDING] ?? FREE) - 1;
  }

  groupOf(slot: number): number {
    return this.#rec[slot * REC + GROUP] ?? 0xffffffff;
  }

  lastActiveOf(slot: number): number {
    return this.#times[slot * REC_F64 + LAST_ACTIVE] ?? 0;
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
      this.#bucketLink(slot, this.#bucketFor(this.lastActiveOf(slot) + ageMs));
    });
  }

  /** Calls `visit` for every entry of a binding; `visit` may remove the entry it is given. */
  forEachOf(binding: number, visit: (slot: number) => void): void {
    let slot = this.#bindingHead[binding] ?? NONE;
    while (slot !== NONE) {
      const next = this.#links[slot * REC + BINDING_NEXT] ?? NONE;
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
      const due = this.#buckets.keysUpTo(nowBucket);
      for (const b of due) this.#expireBucket(b, now, onExpire);
    }
    this.#cursor = nowBucket;
  }

  #expireBucket(bucket: number, now: number, onExpire: (slot: number) => void): void {
    let slot = this.#buckets.get(bucket);
    while (slot !== NONE) {
      const next = this.#links[slot * REC + BUCKET_NEXT] ?? NONE;
      this.examined++;
      const deadline = this.lastActiveOf(slot) + this.ageOf(this.bindingOf(slot));
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
    const head = this.#buckets.get(bucket);
    links[slot * REC + BUCKET_NEXT] = head;
    links[slot * REC + BUCKET_PREV] = NONE;
    if (head !== NONE) links[head * REC + BUCKET_PREV] = slot;
    this.#buckets.set(bucket, slot);
    this.#bucketBase ??= bucket;
    links[slot * REC + BUCKET] = bucket - this.#bucketBase;
  }

  #bucketUnlink(slot: number): void {
    const links = this.#links;
    const next = links[slot * REC + BUCKET_NEXT] ?? NONE;
    const prev = links[slot * REC + BUCKET_PREV] ?? NONE;
    if (prev !== NONE) {
      links[prev * REC + BUCKET_NEXT] = next;
    } else {
      this.#buckets.set((links[slot * REC + BUCKET] ?? 0) + (this.#bucketBase ?? 0), next);
    }
    if (next !== NONE) links[next * REC + BUCKET_PREV] = prev;
  }

  #bindingLink(slot: number, binding: number): void {
    this.#ensureBinding(binding);
    const links = this.#links;
    const head = this.#bindingHead[binding] ?? NONE;
    links[slot * REC + BINDING_NEXT] = head;
    links[slot * REC + BINDING_PREV] = NONE;
    if (head !== NONE) links[head * REC + BINDING_PREV] = slot;
    this.#bindingHead[binding] = slot;
    this.#bindingCount[binding] = (this.#bindingCount[binding] ?? 0) + 1;
  }

  #bindingUnlink(slot: number, binding: number): void {
    const links = this.#links;
    const next = links[slot * REC + BINDING_NEXT] ?? NONE;
    const prev = links[slot * REC + BINDING_PREV] ?? NONE;
    if (prev !== NONE) links[prev * REC + BINDING_NEXT] = next;
    else this.#bindingHead[binding] = next;
    if (next !== NONE) links[next * REC + BINDING_PREV] = prev;
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

  #unindex(slot: number): void {
    const o = slot * REC;
    const rec = this.#rec;
    const ports = rec[o + PORTS] ?? 0;
    const scopeByte = rec[o + SCOPE] ?? 0;
    const listener = (scopeByte >>> 1) * 65536 + (ports & 0xffff);
    const index = this.#indexOf(listener, false);
    if (index === undefined) return;
    const v6 = (scopeByte & 1) === 1;
    const word = v6 ? foldAddress(rec.subarray(o, o + 4)) : (rec[o + 3] ?? 0);
    // An index that empties is kept: listeners are few, and a busy one that goes from one
    // connection to none and back must not rebuild its index each time.
    index.remove(word, portKey(ports >>> 16, v6), slot);
  }

  #grow(capacity: number): void {
    const buffer = new ArrayBuffer(capacity * REC * 4);
    const rec = new Uint32Array(buffer);
    rec.set(this.#rec);
    this.#rec = rec;
    this.#links = new Int32Array(buffer);
    this.#times = new Float64Array(buffer);
    this.#capacity = capacity;
  }
}

/** An IPv6 address folded into one word for the index (the record keeps all four). */
function foldAddress(ip: ArrayLike<number>): number {
  let h = Math.imul((ip[0] ?? 0) ^ 0x5bd1e995, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ (ip[1] ?? 0), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ (ip[2] ?? 0), 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16) ^ (ip[3] ?? 0), 0x9e3779b1);
  return fmix32(h);
}

/**
 * Heads of the bucket lists, by bucket number. A Map, with the bucket last written kept aside:
 * new entries all go to the bucket of now + Delete Age, so most writes skip the Map.
 */
class BucketHeads {
  #map = new Map<number, number>();
  #hot = Number.NaN;
  #hotHead = NONE;

  get(bucket: number): number {
    return bucket === this.#hot ? this.#hotHead : (this.#map.get(bucket) ?? NONE);
  }

  /** Sets the head of a bucket's list; NONE empties it. */
  set(bucket: number, head: number): void {
    if (bucket !== this.#hot) {
      this.#flush();
      this.#hot = bucket;
    }
    this.#hotHead = head;
  }

  get size(): number {
    this.#flush();
    return this.#map.size;
  }

  /** Non-empty buckets up to `last`, in order. */
  keysUpTo(last: number): number[] {
    this.#flush();
    return [...this.#map.keys()].filter((b) => b <= last).sort((a, b) => a - b);
  }

  #flush(): void {
    if (Number.isNaN(this.#hot)) return;
    if (this.#hotHead === NONE) this.#map.delete(this.#hot);
    else this.#map.set(this.#hot, this.#hotHead);
    this.#hot = Number.NaN;
  }
}
