/**
 * Initiator connections (SPEC §3.6): each application server owns a slice of source ports
 * (its Initiator Port Range). Outbound connections it opens from a TSA get a free port from its
 * slice, so that any packet arriving at TSA:port with port in server s's slice belongs to s.
 */

export interface PortRange {
  readonly start: number;
  readonly end: number;
}

/**
 * Free ports of one range, handed out next-fit (the port after the last one given, wrapping):
 * a released port is reused, but not at once while others are free, which keeps a just-closed
 * four-tuple out of the way of its TIME_WAIT.
 */
export class PortAllocator {
  readonly range: PortRange;
  #inUse: Uint8Array;
  #count = 0;
  #next = 0;

  constructor(range: PortRange) {
    if (!(range.start >= 1 && range.end <= 65535 && range.start <= range.end)) {
      throw new RangeError(`invalid port range ${range.start}-${range.end}`);
    }
    this.range = range;
    this.#inUse = new Uint8Array(range.end - range.start + 1);
  }

  get inUse(): number {
    return this.#count;
  }

  get free(): number {
    return this.#inUse.length - this.#count;
  }

  /** A free port of the range, now in use; null when all are in use. */
  allocate(): number | null {
    const size = this.#inUse.length;
    if (this.#count === size) return null;
    for (let k = 0; k < size; k++) {
      const i = (this.#next + k) % size;
      if (this.#inUse[i] === 0) {
        this.#inUse[i] = 1;
        this.#count++;
        this.#next = (i + 1) % size;
        return this.range.start + i;
      }
    }
    return null;
  }

  /** Marks a port free again; false when it was not in use (or is outside the range). */
  release(port: number): boolean {
    const i = port - this.range.start;
    if (!Number.isInteger(port) || i < 0 || i >= this.#inUse.length || this.#inUse[i] === 0) {
      return false;
    }
    this.#inUse[i] = 0;
    this.#count--;
    return true;
  }

  isInUse(port: number): boolean {
    return this.#inUse[port - this.range.start] === 1;
  }
}

/** Port → server for one Target Set: the server whose range holds the port. */
export class InitiatorRoutes {
  readonly #ranges: readonly { readonly range: PortRange; readonly server: string }[];

  constructor(servers: readonly { readonly server: string; readonly range: PortRange | null }[]) {
    this.#ranges = servers.flatMap((s) => (s.range ? [{ range: s.range, server: s.server }] : []));
  }

  /** The server that owns `port`, or null when no server's range holds it. */
  route(port: number): string | null {
    for (const r of this.#ranges) {
      if (port >= r.range.start && port <= r.range.end) return r.server;
    }
    return null;
  }
}
