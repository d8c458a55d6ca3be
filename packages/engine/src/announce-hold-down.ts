import { announcable, type PlannedTsa } from './forwarding-plan.ts';
import { STATE_RULES } from './server-state.ts';

/**
 * When an active-active IPFE (re)starts announcing a TSA (decision 018). ECMP sends it a share of
 * the TSA's flows the moment the router has its route, held ones included; a flow it has no
 * record of goes by the table of the servers it sees keeping their connections. Announced as soon
 * as one server is back, an IPFE whose monitors have not reached the others yet would send their
 * flows to the wrong server, or reset them. So a TSA not announced now is announced only once
 * what this IPFE knows of its servers has held still for the hold-down; a withdrawal is at once.
 */
export class AnnounceHoldDown {
  readonly #views = new Map<string, { view: string; since: number }>();
  #announced = new Set<string>();

  /** The TSAs of `plans` to announce at `now` (ms, monotonic), among those announcable. */
  announce(plans: readonly PlannedTsa[], now: number, holdDownMs: number): PlannedTsa[] {
    const next = new Set<string>();
    const chosen: PlannedTsa[] = [];
    for (const plan of plans) {
      const view = viewOf(plan);
      const seen = this.#views.get(plan.tsa);
      if (!seen || seen.view !== view) this.#views.set(plan.tsa, { view, since: now });
      if (!announcable(plan)) continue;
      const since = this.#views.get(plan.tsa)!.since;
      if (this.#announced.has(plan.tsa) || now - since >= holdDownMs) {
        next.add(plan.tsa);
        chosen.push(plan);
      }
    }
    for (const tsa of this.#views.keys())
      if (!plans.some((p) => p.tsa === tsa)) this.#views.delete(tsa);
    this.#announced = next;
    return chosen;
  }
}

/** What the IPFE knows of a TSA's servers that decides where a flow goes: who takes new, who keeps. */
function viewOf(plan: PlannedTsa): string {
  return plan.servers
    .map((s) => `${s.server}:${s.takesNew ? 'n' : ''}${STATE_RULES[s.state].existing}`)
    .join(',');
}
