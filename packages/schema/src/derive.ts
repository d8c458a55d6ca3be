import { z } from 'zod';
import { configurationShape, type Configuration } from './configuration.ts';
import { INITIATOR_PORTS, APP_SERVERS_MAX, MATE_OF, type IpfeSlot } from './limits.ts';
import { portRangeSchema, type PortRange } from './network.ts';
import type { Options } from './options.ts';
import {
  factorPairRefused,
  leastLoadSchema,
  publicAddressSchema,
  secondaryAddressSchema,
  targetSetSchema,
  targetSetServerSchema,
  ipfeSlot,
  type TargetSet,
} from './target-set.ts';

/**
 * Fm and Fc scaled so that Fm + Fc = 100: Fm' = round-half-up(100·Fm / (Fm + Fc)), Fc' = 100 − Fm'.
 * Integer arithmetic, so 1/2 is 33/67 and 3/5 is 38/62 exactly. Fm = Fc = 0 is refused by the
 * schema with Least Load; here it is returned unchanged.
 */
export function normalizeFactors(mpsFactor: number, connectionCountFactor: number) {
  const sum = mpsFactor + connectionCountFactor;
  if (sum === 0) return { mpsFactor, connectionCountFactor };
  const normalizedMps = Math.floor((200 * mpsFactor + sum) / (2 * sum));
  return { mpsFactor: normalizedMps, connectionCountFactor: 100 - normalizedMps };
}

/** Fm and Fc as a commit keeps them: normalized for Least Load, as typed for Hash (SPEC §2.5). */
export function normalizeTargetSet(ts: TargetSet): TargetSet {
  if (ts.algorithm !== 'leastLoad') return ts;
  const factors = normalizeFactors(ts.leastLoad.mpsFactor, ts.leastLoad.connectionCountFactor);
  return { ...ts, leastLoad: { ...ts.leastLoad, ...factors } };
}

const factorFields = leastLoadSchema.pick({ mpsFactor: true, connectionCountFactor: true });

/**
 * The Fm / Fc a save would keep, from values as a form holds them; null while the schema refuses
 * them (out of range, or 0 / 0 with Least Load).
 */
export function savedFactors(ts: {
  algorithm: TargetSet['algorithm'];
  leastLoad: { mpsFactor: unknown; connectionCountFactor: unknown };
}): { mpsFactor: number; connectionCountFactor: number } | null {
  const { mpsFactor, connectionCountFactor } = ts.leastLoad;
  const parsed = factorFields.safeParse({ mpsFactor, connectionCountFactor });
  if (!parsed.success) return null;
  const leastLoad = parsed.data;
  if (factorPairRefused({ algorithm: ts.algorithm, leastLoad })) return null;
  return ts.algorithm === 'leastLoad'
    ? normalizeFactors(leastLoad.mpsFactor, leastLoad.connectionCountFactor)
    : leastLoad;
}

/** The Preferred Standby: the mate of the active slot when the mate is configured. */
export function standbyOf(options: Options, active: IpfeSlot): IpfeSlot | null {
  const mate = MATE_OF[active];
  return options.ipfe[mate] ? mate : null;
}

export function portRangeOfSlice(slice: number): PortRange {
  const start = INITIATOR_PORTS.start + slice * INITIATOR_PORTS.sliceSize;
  return { start, end: start + INITIATOR_PORTS.sliceSize - 1 };
}

/** The lowest Initiator Port Range slice no server holds; null when all 64 are taken. */
export function allocatePortRange(taken: PortRange[]): PortRange | null {
  const used = new Set(taken.map((r) => r.start));
  for (let slice = 0; slice < APP_SERVERS_MAX; slice++) {
    const range = portRangeOfSlice(slice);
    if (!used.has(range.start)) return range;
  }
  return null;
}

/**
 * The Initiator Port Range of each application server of a configuration given whole (a config
 * document, the source product's CSV), in order: a range given is kept (the rules check it); a
 * server given none keeps the one it runs with (same name) when no server given a range holds
 * it, else gets the lowest slice left; null when none is left.
 */
export function portRangesOf(
  servers: readonly { name: unknown; initiatorPortRange?: PortRange }[],
  running: readonly { name: string; initiatorPortRange: PortRange }[],
): (PortRange | null)[] {
  const ranges: (PortRange | null | undefined)[] = servers.map((s) => s.initiatorPortRange);
  const taken = ranges.filter((r): r is PortRange => r !== undefined && r !== null);
  const isTaken = (range: PortRange) => taken.some((r) => r.start === range.start);
  // The servers that run already keep their slices before a new server takes the lowest free one.
  servers.forEach((server, i) => {
    if (ranges[i] !== undefined) return;
    const own = running.find((s) => s.name === server.name)?.initiatorPortRange;
    if (own && !isTaken(own)) {
      ranges[i] = own;
      taken.push(own);
    }
  });
  return ranges.map((range) => {
    if (range !== undefined) return range;
    const allocated = allocatePortRange(taken);
    if (allocated) taken.push(allocated);
    return allocated;
  });
}

/** A server's chance of selection, weight / Σweights × 100, to one decimal. */
export function chancePct(weight: number, totalWeight: number): number {
  if (totalWeight <= 0) return 0;
  return Math.round((weight / totalWeight) * 1000) / 10;
}

export const derivedServerSchema = targetSetServerSchema.extend({
  appServer: z.string().nullable(),
  initiatorPortRange: portRangeSchema.nullable(),
  chancePct: z.number().min(0).max(100),
});

export const derivedTargetSetSchema = targetSetSchema.safeExtend({
  primary: publicAddressSchema.extend({ standbyIpfe: ipfeSlot('Standby IPFE').nullable() }),
  secondary: secondaryAddressSchema
    .extend({ standbyIpfe: ipfeSlot('Standby IPFE').nullable() })
    .nullable(),
  servers: z.array(derivedServerSchema).min(1).max(32),
});

export type DerivedTargetSet = z.output<typeof derivedTargetSetSchema>;

const serversByAddress = new WeakMap<
  Configuration['appServers'],
  Map<string, Configuration['appServers'][number]>
>();

/** The application server of each address (memoized per list: views derive many rows at once). */
function serverOf(config: Configuration, address: string) {
  let index = serversByAddress.get(config.appServers);
  if (!index) {
    index = new Map(config.appServers.flatMap((s) => s.addresses.map((a) => [a, s] as const)));
    serversByAddress.set(config.appServers, index);
  }
  return index.get(address);
}

export function deriveTargetSet(config: Configuration, ts: TargetSet): DerivedTargetSet {
  const total = ts.servers.reduce((sum, s) => sum + s.weight, 0);
  // An active-active group has no standby: every IPFE of it serves (decision 018).
  const standby = (active: IpfeSlot) =>
    ts.serving === 'activeActive' ? null : standbyOf(config.options, active);
  return {
    ...ts,
    primary: { ...ts.primary, standbyIpfe: standby(ts.primary.activeIpfe) },
    secondary: ts.secondary
      ? { ...ts.secondary, standbyIpfe: standby(ts.secondary.activeIpfe) }
      : null,
    servers: ts.servers.map((row) => {
      const server = serverOf(config, row.address);
      return {
        ...row,
        appServer: server?.name ?? null,
        initiatorPortRange: server?.initiatorPortRange ?? null,
        chancePct: chancePct(row.weight, total),
      };
    }),
  };
}

export function underiveTargetSet(ts: DerivedTargetSet): TargetSet {
  return {
    ...ts,
    primary: { address: ts.primary.address, activeIpfe: ts.primary.activeIpfe },
    secondary: ts.secondary
      ? { address: ts.secondary.address, activeIpfe: ts.secondary.activeIpfe }
      : null,
    servers: ts.servers.map(({ address, secondaryAddress, description, weight }) => ({
      address,
      secondaryAddress,
      description,
      weight,
    })),
  };
}

export const documentConfigShape = configurationShape.extend({
  targetSets: z.array(derivedTargetSetSchema),
});
export type DocumentConfig = z.output<typeof documentConfigShape>;

/** Sorted by identity, so that one configuration has exactly one canonical document. */
export function sortConfiguration(config: Configuration): Configuration {
  const byName = <T extends { name: string }>(a: T, b: T) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  return {
    ...config,
    xsiNetworks: [...config.xsiNetworks].sort(byName),
    appServers: [...config.appServers].sort(byName),
    peerNodeGroups: [...config.peerNodeGroups].sort(byName),
    targetSets: [...config.targetSets].sort((a, b) => a.number - b.number),
  };
}

/** The configuration with normalized Fm/Fc and every derived field filled in. */
export function deriveConfiguration(config: Configuration): DocumentConfig {
  const sorted = sortConfiguration(config);
  return {
    ...sorted,
    targetSets: sorted.targetSets.map((ts) => deriveTargetSet(sorted, normalizeTargetSet(ts))),
  };
}

export function underiveConfiguration(config: DocumentConfig): Configuration {
  return { ...config, targetSets: config.targetSets.map(underiveTargetSet) };
}
