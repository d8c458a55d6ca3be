import type { ForwardingPlan } from '@ipfe/engine';
import type { Logger } from 'pino';
import type { Listener } from './data-plane.ts';
import type { ExitGuard } from './exit-guard.ts';
import { NftTable, ServedPlan } from './nft.ts';

/**
 * Whether a render is due at `now`: at once when `force` (a TSA gained or lost, a new
 * configuration), else at most every `everyMs` since the last one.
 */
export function renderDue(lastAt: number, now: number, everyMs: number, force: boolean): boolean {
  return force || now - lastAt >= everyMs;
}

export interface NftPathOptions {
  family: 'inet' | 'netdev';
  slot: string;
  log: Logger;
  guard?: ExitGuard | null | undefined;
  /** The least time between two refreshes of an unchanged configuration. */
  refreshEveryMs: number;
  now(): number;
}

/**
 * What the kernel and direct paths share: the agent's own nft table (`ipfe_<slot>`), when its
 * next render is due, and the TSA:port pairs the plan wants, which cannot be served while nft
 * refuses the rules.
 */
export class NftPath {
  readonly table: string;
  readonly nft: NftTable;
  #wanted: Listener[] = [];
  #lastRender = 0;
  #served = new ServedPlan();

  constructor(private readonly options: NftPathOptions) {
    this.table = `ipfe_${options.slot.toLowerCase()}`;
    this.nft = new NftTable(options.family, this.table, options.log, options.guard ?? null);
  }

  /** Whether `serve` renders now: a TSA gained or lost, or a new configuration, at once. */
  serveDue(plan: ForwardingPlan, served: readonly string[]): boolean {
    return this.#due(this.#served.changed(plan, served));
  }

  /** Whether `refresh` renders now (asked before the plan is made: it costs). */
  refreshDue(): boolean {
    return this.#due(false);
  }

  #due(force: boolean): boolean {
    const now = this.options.now();
    if (!renderDue(this.#lastRender, now, this.options.refreshEveryMs, force)) return false;
    this.#lastRender = now;
    return true;
  }

  /** The TSA:port pairs the plan being rendered serves. */
  want(listeners: Listener[]): void {
    this.#wanted = listeners;
  }

  get wanted(): readonly Listener[] {
    return this.#wanted;
  }

  /** Why the rules are not in force (nft refused the last transaction), or null. */
  rulesError(): string | null {
    return this.nft.error;
  }

  listening(): Listener[] {
    return this.nft.error ? [] : [...this.#wanted];
  }
}
