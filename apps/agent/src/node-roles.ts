import type { TsaRoles } from '@ipfe/engine';
import {
  activeActiveGroupOf,
  type ConfigDocument,
  type DerivedTargetSet,
  type IpfeSlot,
} from '@ipfe/schema';

/**
 * The enabled Target Sets an IPFE is active or standby for (primary or secondary), or in whose
 * active-active group it is: those it may serve, now or after a takeover.
 */
export function targetSetsOf(document: ConfigDocument, slot: IpfeSlot): DerivedTargetSet[] {
  const mine = (active: IpfeSlot, standby: IpfeSlot | null) => active === slot || standby === slot;
  return document.config.targetSets.filter((ts) => {
    if (ts.disabled) return false;
    const group = activeActiveGroupOf(ts);
    if (group) return group.includes(slot);
    return (
      mine(ts.primary.activeIpfe, ts.primary.standbyIpfe) ||
      (ts.secondary !== null && mine(ts.secondary.activeIpfe, ts.secondary.standbyIpfe))
    );
  });
}

/** The servers an IPFE monitors: of every Target Set it may serve, ready before a takeover. */
export function watchedServers(document: ConfigDocument, slot: IpfeSlot): string[] {
  const servers = new Set<string>();
  for (const ts of targetSetsOf(document, slot)) for (const s of ts.servers) servers.add(s.address);
  return [...servers];
}

/** Whether an IPFE relays connections its servers open (one of its Target Sets has Initiator support). */
export function servesInitiators(document: ConfigDocument, slot: IpfeSlot): boolean {
  return targetSetsOf(document, slot).some((ts) => ts.initiatorSupport);
}

/**
 * The TSA a server's own connections leave from (SPEC §3.6): the first served TSA of a Target Set
 * with Initiator support that lists the server (by either of its addresses); null when none.
 */
export function initiatorTsaOf(
  document: ConfigDocument,
  served: Iterable<TsaRoles>,
  server: string,
): string | null {
  for (const roles of served) {
    const ts = document.config.targetSets.find((t) => t.number === roles.targetSet);
    if (
      ts?.initiatorSupport &&
      ts.servers.some((s) => s.address === server || s.secondaryAddress === server)
    )
      return roles.address;
  }
  return null;
}

/**
 * The TSAs a data path is given a plan for: those served now, or — where the path keeps the rules
 * of the TSAs it stands by for programmed, so that a takeover need not wait for them — every TSA
 * of the configuration.
 */
export function plannedTsas(
  document: ConfigDocument | null,
  served: Iterable<string>,
  rendersStandby: boolean,
): Iterable<string> {
  if (!rendersStandby) return served;
  return (
    document?.config.targetSets.flatMap((ts) =>
      [ts.primary.address, ts.secondary?.address ?? ''].filter(Boolean),
    ) ?? []
  );
}

/**
 * What an IPFE serves of what Ownership gives it: an active-active TSA only where it can announce
 * it (a BGP speaker, the direct path); another path serves none of it and says so (alarm 5002).
 */
export function servable(roles: readonly TsaRoles[], canAnnounce: boolean): TsaRoles[] {
  return roles.filter((r) => !r.activeActive || canAnnounce);
}
