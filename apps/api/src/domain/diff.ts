import diff from 'microdiff';
import type { DocumentConfig } from '@ipfe/schema';

export interface ConfigDiff {
  added: { path: string; value: unknown }[];
  removed: { path: string; value: unknown }[];
  changed: { path: string; old: unknown; new: unknown }[];
}

/**
 * Collections keyed by identity ("targetSets.3", "appServers.mp1"), so that deleting one entity
 * shows as one removal rather than as every later entity shifting by one.
 */
function keyed(config: DocumentConfig) {
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

export function diffConfigs(from: DocumentConfig, to: DocumentConfig): ConfigDiff {
  const result: ConfigDiff = { added: [], removed: [], changed: [] };
  for (const change of diff(keyed(from), keyed(to))) {
    const path = change.path.join('.');
    if (change.type === 'CREATE') result.added.push({ path, value: change.value });
    else if (change.type === 'REMOVE') result.removed.push({ path, value: change.oldValue });
    else result.changed.push({ path, old: change.oldValue, new: change.value });
  }
  return result;
}
