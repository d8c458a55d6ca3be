import diff from 'microdiff';
import { keyedConfig, type ConfigDiff, type DocumentConfig } from '@ipfe/schema';

/** What changed from one configuration to another, by the paths of `keyedConfig`. */
export function diffConfigs(from: DocumentConfig, to: DocumentConfig): ConfigDiff {
  const result: ConfigDiff = { added: [], removed: [], changed: [] };
  for (const change of diff(keyedConfig(from), keyedConfig(to))) {
    const path = change.path.join('.');
    if (change.type === 'CREATE') result.added.push({ path, value: change.value });
    else if (change.type === 'REMOVE') result.removed.push({ path, value: change.oldValue });
    else result.changed.push({ path, old: change.oldValue, new: change.value });
  }
  return result;
}
