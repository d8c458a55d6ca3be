import type { DocumentConfig } from './derive.ts';

/**
 * The configuration with its collections keyed by identity ("targetSets.3", "appServers.mp1"), so
 * that deleting one entity shows as one removal rather than as every later entity shifting by one.
 * The API's revision diff names its paths in it; the GUI finds those paths in it again.
 */
export function keyedConfig(config: DocumentConfig) {
  const byName = <T extends { name: string }>(items: T[]) =>
    Object.fromEntries(items.map((item) => [item.name, item]));
  return {
    options: config.options,
    xsiNetworks: byName(config.xsiNetworks),
    appServers: byName(config.appServers),
    peerNodeGroups: byName(config.peerNodeGroups),
    targetSets: Object.fromEntries(config.targetSets.map((ts) => [String(ts.number), ts])),
  };
}
