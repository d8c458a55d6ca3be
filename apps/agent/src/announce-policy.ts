import type { ForwardingPlan, PlannedTsa, TsaRoles } from '@ipfe/engine';
import type { Bgp, IpfeSlot, Options } from '@ipfe/schema';
import { prefixOf, routerIdOf } from './frr-config.ts';

/** What FRR is asked to run and announce (decision 018); the agent asks again when it changes. */
export interface Announcement {
  /** Options › BGP while this node is in an active-active group; null: no BGP session at all. */
  readonly settings: Bgp | null;
  readonly routerId: string | null;
  /** Host routes of the TSAs announced now. */
  readonly prefixes: readonly string[];
}

/** The planned TSAs this node serves active-active now: what it may announce. */
export function activeActiveTsas(plan: ForwardingPlan, served: readonly TsaRoles[]): PlannedTsa[] {
  const aa = new Set(served.filter((r) => r.activeActive).map((r) => r.address));
  return plan.tsas.filter((p) => aa.has(p.tsa));
}

/**
 * Whether `slot` is in the group of an enabled active-active TSA: its BGP sessions stay up then,
 * even while it serves none of them (its TSA-facing link down, decision 028), so that a session
 * lost with the link is still told (5152) and comes back with it.
 */
export function inActiveActiveGroup(roles: readonly TsaRoles[], slot: IpfeSlot): boolean {
  return roles.some((r) => !r.disabled && r.activeActive?.includes(slot));
}

/**
 * How long what this node knows of a TSA's servers must hold still before the TSA is announced
 * again: as long as a reachable server may take to be seen again (a connect timeout and a retry
 * interval; decision 018).
 */
export function holdDownMsOf(options: Options | undefined): number {
  return options ? (options.connectTimeoutS + options.connectTryIntervalS) * 1000 : 0;
}

/**
 * What to ask of FRR: BGP only while in an active-active group, the router ID from this
 * node's own address, and the prefixes of `announced` (the active-active TSAs that the hold-down
 * lets through, each with a server taking new connections).
 */
export function announcement(
  options: Options | undefined,
  slot: IpfeSlot,
  servesActiveActive: boolean,
  announced: readonly PlannedTsa[],
): Announcement {
  const own = options?.ipfe[slot]?.address ?? null;
  return {
    settings: servesActiveActive ? (options?.bgp ?? null) : null,
    routerId: own ? routerIdOf(own) : null,
    prefixes: announced.map((p) => prefixOf(p.tsa)),
  };
}
