/**
 * Counters an agent exports (SPEC §4.6): per binding (a Target Set address × a server) the
 * connections opened, expired at Delete Age and evicted by the engine (server offline or
 * initializing, or removed by a new configuration); per Target Set the refusals by reason.
 * Open connections are counted by the connection table itself.
 */

export const REFUSAL_REASONS = [
  'invalid-source',
  'unknown-tsa',
  'target-set-disabled',
  'protocol-not-supported',
  'port-not-forwarded',
  'no-server',
  'table-full',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export const CLOSE_REASONS = [
  'idle',
  'server-offline',
  'server-initializing',
  'config-removed',
] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

const REASON_INDEX = new Map<RefusalReason, number>(REFUSAL_REASONS.map((r, i) => [r, i]));

export type RefusalCounts = Record<RefusalReason, number>;

export class Counters {
  #opened = new Float64Array(64);
  #expired = new Float64Array(64);
  #evicted = new Float64Array(64);
  /** Refusals by Target Set number; 0 holds those that name no Target Set. */
  #refused = new Map<number, Float64Array>();

  opened(binding: number): void {
    this.#ensure(binding);
    this.#opened[binding] = (this.#opened[binding] ?? 0) + 1;
  }

  closed(binding: number, reason: CloseReason): void {
    this.#ensure(binding);
    const series = reason === 'idle' ? this.#expired : this.#evicted;
    series[binding] = (series[binding] ?? 0) + 1;
  }

  refused(targetSet: number | null, reason: RefusalReason): void {
    const key = targetSet ?? 0;
    let counts = this.#refused.get(key);
    if (!counts) {
      counts = new Float64Array(REFUSAL_REASONS.length);
      this.#refused.set(key, counts);
    }
    const i = REASON_INDEX.get(reason) ?? 0;
    counts[i] = (counts[i] ?? 0) + 1;
  }

  /** A binding id given to a new binding starts from zero. */
  reset(binding: number): void {
    this.#ensure(binding);
    this.#opened[binding] = 0;
    this.#expired[binding] = 0;
    this.#evicted[binding] = 0;
  }

  ofBinding(binding: number): { opened: number; expired: number; evicted: number } {
    return {
      opened: this.#opened[binding] ?? 0,
      expired: this.#expired[binding] ?? 0,
      evicted: this.#evicted[binding] ?? 0,
    };
  }

  /** Refusals of a Target Set, or with null those that name none (unknown TSA, bad source). */
  refusals(targetSet: number | null): RefusalCounts {
    const counts = this.#refused.get(targetSet ?? 0);
    return Object.fromEntries(
      REFUSAL_REASONS.map((r, i) => [r, counts?.[i] ?? 0]),
    ) as RefusalCounts;
  }

  #ensure(binding: number): void {
    if (binding < this.#opened.length) return;
    const size = 2 ** Math.ceil(Math.log2(binding + 1));
    this.#opened = grown(this.#opened, size);
    this.#expired = grown(this.#expired, size);
    this.#evicted = grown(this.#evicted, size);
  }
}

function grown(array: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(size);
  next.set(array);
  return next;
}
