import type { ConfigDocument, IpfeSlot } from '@ipfe/schema';
import { activeActiveGroupOf, IPFE_SLOTS } from '@ipfe/schema';

/**
 * Ownership and failover (SPEC §3.7): which IPFE serves each TSA address. A TSA is served by
 * its active IPFE while that IPFE is alive, otherwise by its standby; a disabled Target Set by
 * nobody. A returning active takes its addresses back only once it has been alive for the
 * hold-off, so that a flapping node does not bounce traffic (unless nobody else can serve).
 *
 * Liveness is fed in as events with their time. Every slot starts as "alive since ever": an
 * agent declares its mate dead only after mateTimeoutMs of silence, and an agent declares its
 * own (re)start with `restarted`, so that it waits for the hold-off before it takes its
 * addresses back from the mate that covered for it.
 *
 * A slot may also be alive but unable to serve (`unable`: its TSA-facing link is down, decision
 * 028): it steps aside for a slot that is alive and able, and when it is `able` again it waits
 * for the hold-off, as after a return. Where no slot of a TSA is able, the alive ones serve as if
 * all were: a node that may still reach some clients is better than none.
 */

export const PREEMPTION_HOLD_OFF_MS = 2000;

export interface TsaRoles {
  readonly address: string;
  readonly targetSet: number;
  readonly active: IpfeSlot;
  readonly standby: IpfeSlot | null;
  readonly disabled: boolean;
  /**
   * Active-active (issue 18): the IPFEs that all serve this TSA at once, each whenever it is
   * alive (no standby, no hold-off); null for active/standby.
   */
  readonly activeActive: readonly IpfeSlot[] | null;
}

/** How a served TSA reaches the node: held as an address (gratuitous ARP) or announced by BGP. */
export type Announce = 'arp' | 'bgp';

export function announceOf(roles: Pick<TsaRoles, 'activeActive'>): Announce {
  return roles.activeActive ? 'bgp' : 'arp';
}

interface Liveness {
  alive: boolean;
  since: number;
  /** False while the slot says it cannot serve (its TSA-facing link is down). */
  able: boolean;
}

export class Ownership {
  readonly holdOffMs: number;
  #tsas = new Map<string, TsaRoles>();
  #slots = new Map<IpfeSlot, Liveness>(
    IPFE_SLOTS.map((slot) => [slot, { alive: true, since: Number.NEGATIVE_INFINITY, able: true }]),
  );

  constructor(document?: ConfigDocument, options: { holdOffMs?: number } = {}) {
    this.holdOffMs = options.holdOffMs ?? PREEMPTION_HOLD_OFF_MS;
    if (document) this.apply(document);
  }

  /** Takes the TSAs and their roles from a new configuration; liveness is kept. */
  apply(document: ConfigDocument): void {
    this.#tsas = new Map(tsaRolesOf(document).map((r) => [r.address, r]));
  }

  /** `slot` is heard from at `now` (a mate's beacon). A slot that was dead is alive from now. */
  alive(slot: IpfeSlot, now: number): void {
    const s = this.#slot(slot);
    if (s.alive) return;
    s.alive = true;
    s.since = now;
  }

  /** `slot` (re)starts at `now`: alive from now on, so it waits for the hold-off. */
  restarted(slot: IpfeSlot, now: number): void {
    const s = this.#slot(slot);
    s.alive = true;
    s.since = now;
  }

  /** `slot` is silent past the mate timeout. */
  dead(slot: IpfeSlot, now: number): void {
    const s = this.#slot(slot);
    s.alive = false;
    s.since = now;
  }

  /** `slot` cannot serve from `now` (its TSA-facing link is down): its TSAs go to an able mate. */
  unable(slot: IpfeSlot, _now: number): void {
    this.#slot(slot).able = false;
  }

  /** `slot` can serve again from `now`: like a return, it waits for the hold-off to take TSAs back. */
  able(slot: IpfeSlot, now: number): void {
    const s = this.#slot(slot);
    if (s.able) return;
    s.able = true;
    s.since = now;
  }

  isAlive(slot: IpfeSlot): boolean {
    return this.#slot(slot).alive;
  }

  /** The slot that serves `tsa` at `now`, or null (unknown address, disabled, nobody alive). */
  owner(tsa: string, now: number): IpfeSlot | null {
    const roles = this.#tsas.get(tsa);
    return roles ? this.ownerOfRoles(roles, now) : null;
  }

  /** Active-active: the first member that is alive and able (else alive), the one a single answer names. */
  ownerOfRoles(roles: TsaRoles, now: number): IpfeSlot | null {
    if (roles.disabled) return null;
    if (roles.activeActive) {
      const { activeActive: group } = roles;
      return (
        group.find((slot) => this.#ready(slot)) ?? group.find((slot) => this.#alive(slot)) ?? null
      );
    }
    const standby = roles.standby;
    // Those able to serve first; when neither is, the alive ones as if both were.
    const eligible =
      this.#ready(roles.active) || (standby !== null && this.#ready(standby))
        ? (slot: IpfeSlot) => this.#ready(slot)
        : (slot: IpfeSlot) => this.#alive(slot);
    const active = this.#slot(roles.active);
    const standbyEligible = standby !== null && eligible(standby);
    if (eligible(roles.active) && (now - active.since >= this.holdOffMs || !standbyEligible)) {
      return roles.active;
    }
    return standbyEligible ? standby : null;
  }

  /**
   * Whether `slot` serves `roles` at `now`: its owner (active/standby), or, active-active, one of
   * the group while it is alive (every alive member serves; ECMP spreads the flows over them) and
   * able, or while no member is able.
   */
  serves(slot: IpfeSlot, roles: TsaRoles, now: number): boolean {
    if (roles.disabled) return false;
    if (roles.activeActive) {
      if (!roles.activeActive.includes(slot) || !this.#alive(slot)) return false;
      return this.#ready(slot) || !roles.activeActive.some((other) => this.#ready(other));
    }
    return this.ownerOfRoles(roles, now) === slot;
  }

  /** The TSAs `slot` serves at `now`, in Target Set order. */
  servedBy(slot: IpfeSlot, now: number): TsaRoles[] {
    return [...this.#tsas.values()].filter((r) => this.serves(slot, r, now));
  }

  /** The earliest time after `now` at which an answer of `owner` may change without an event. */
  nextChange(now: number): number | null {
    let next: number | null = null;
    for (const s of this.#slots.values()) {
      const at = s.since + this.holdOffMs;
      if (s.alive && at > now && (next === null || at < next)) next = at;
    }
    return next;
  }

  #alive(slot: IpfeSlot): boolean {
    return this.#slot(slot).alive;
  }

  /** Alive and able to serve. */
  #ready(slot: IpfeSlot): boolean {
    const s = this.#slot(slot);
    return s.alive && s.able;
  }

  #slot(slot: IpfeSlot): Liveness {
    const s = this.#slots.get(slot);
    if (!s) throw new RangeError(`unknown IPFE slot ${String(slot)}`);
    return s;
  }
}

/** Every TSA (primary and secondary) of a configuration with its roles. */
export function tsaRolesOf(document: ConfigDocument): TsaRoles[] {
  return document.config.targetSets.flatMap((ts) => {
    const group = activeActiveGroupOf(ts);
    // Active-active: the group serves both addresses; the active/standby fields are ignored.
    const rolesOf = (side: {
      address: string;
      activeIpfe: IpfeSlot;
      standbyIpfe: IpfeSlot | null;
    }) => ({
      address: side.address,
      targetSet: ts.number,
      active: group?.[0] ?? side.activeIpfe,
      standby: group ? null : side.standbyIpfe,
      disabled: ts.disabled,
      activeActive: group,
    });
    const roles: TsaRoles[] = [rolesOf(ts.primary)];
    if (ts.secondary) roles.push(rolesOf(ts.secondary));
    return roles;
  });
}
