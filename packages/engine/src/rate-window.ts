/**
 * Events per index over the last second, as a ring of ten 100 ms slots: `count` is the number of
 * events in the current slot and the nine before it, so the window covers between 0.9 and 1 s
 * of history. Counting is O(1); moving the clock clears only the slots that fell out of the
 * window. Time that goes backwards is treated as "still the same slot".
 */
export const RATE_SLOT_MS = 100;
export const RATE_SLOTS = 10;

export class RateWindow {
  #ring: Uint32Array;
  #count: Uint32Array;
  #size: number;
  #slot = 0;

  constructor(size = 16) {
    this.#size = Math.max(1, size);
    this.#ring = new Uint32Array(this.#size * RATE_SLOTS);
    this.#count = new Uint32Array(this.#size);
  }

  /** Makes room for indices below `size`. */
  ensure(size: number): void {
    if (size <= this.#size) return;
    let next = this.#size;
    while (next < size) next *= 2;
    const ring = new Uint32Array(next * RATE_SLOTS);
    ring.set(this.#ring);
    const count = new Uint32Array(next);
    count.set(this.#count);
    this.#ring = ring;
    this.#count = count;
    this.#size = next;
  }

  /** Moves the window so that it ends at `now` (ms). */
  advance(now: number): void {
    const slot = Math.floor(now / RATE_SLOT_MS);
    if (slot <= this.#slot) return;
    const elapsed = slot - this.#slot;
    this.#slot = slot;
    if (elapsed >= RATE_SLOTS) {
      this.#ring.fill(0);
      this.#count.fill(0);
      return;
    }
    const ring = this.#ring;
    const count = this.#count;
    for (let k = 0; k < elapsed; k++) {
      const s = ringSlot(slot - k);
      for (let i = 0, at = s; i < this.#size; i++, at += RATE_SLOTS) {
        const stale = ring[at] ?? 0;
        if (stale !== 0) {
          count[i] = (count[i] ?? 0) - stale;
          ring[at] = 0;
        }
      }
    }
  }

  /** Counts one event for `index` at the time of the last `advance`. */
  add(index: number): void {
    const at = index * RATE_SLOTS + ringSlot(this.#slot);
    this.#ring[at] = (this.#ring[at] ?? 0) + 1;
    this.#count[index] = (this.#count[index] ?? 0) + 1;
  }

  /** Events per index in the window ending at the last `advance` (valid until `ensure`). */
  get counts(): Uint32Array {
    return this.#count;
  }

  /** Events for `index` in the window ending at the last `advance`. */
  count(index: number): number {
    return this.#count[index] ?? 0;
  }

  /** Forgets everything counted for `index`. */
  clear(index: number): void {
    this.#ring.fill(0, index * RATE_SLOTS, (index + 1) * RATE_SLOTS);
    this.#count[index] = 0;
  }
}

function ringSlot(slot: number): number {
  return ((slot % RATE_SLOTS) + RATE_SLOTS) % RATE_SLOTS;
}
