import type { ConfigDiff, DocumentConfig } from '@ipfe/schema';
import { diffConfigs } from './diff.ts';

/** A change of an import that undoes or overwrites what another operator committed since. */
export interface Overwrite {
  path: string;
  revision: number;
  author: string;
}

export interface HistoryEntry {
  number: number;
  author: string;
  config: DocumentConfig;
}

/** Whether two paths of `keyedConfig` name the same value, or one lies inside the other. */
const overlaps = (a: string, b: string) =>
  a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);

/**
 * The changes of an import that touch what a later commit changed, by someone other than the
 * importer: `history` runs from the revision the operator first previewed the file against to the
 * one it is previewed against now, oldest first. Each change names the latest such commit.
 */
export function overwrittenEdits(
  changes: ConfigDiff,
  history: readonly HistoryEntry[],
  importer: string,
): Overwrite[] {
  const paths = [...changes.added, ...changes.removed, ...changes.changed].map((c) => c.path);
  const commits: { number: number; author: string; paths: string[] }[] = [];
  for (let i = 1; i < history.length; i++) {
    const step = diffConfigs(history[i - 1]!.config, history[i]!.config);
    commits.push({
      number: history[i]!.number,
      author: history[i]!.author,
      paths: [...step.added, ...step.removed, ...step.changed].map((c) => c.path),
    });
  }
  const out: Overwrite[] = [];
  for (const path of paths) {
    const latest = commits.findLast((c) => c.paths.some((p) => overlaps(p, path)));
    if (latest && latest.author !== importer) {
      out.push({ path, revision: latest.number, author: latest.author });
    }
  }
  return out;
}
