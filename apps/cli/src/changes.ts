import type { ConfigDiff } from '@ipfe/schema';

const show = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));

/** A diff as lines an operator reads: `+ path: value`, `- path: value`, `~ path: old → new`. */
export function changeLines(changes: ConfigDiff): string[] {
  return [
    ...changes.removed.map((c) => `- ${c.path}: ${show(c.value)}`),
    ...changes.added.map((c) => `+ ${c.path}: ${show(c.value)}`),
    ...changes.changed.map((c) => `~ ${c.path}: ${show(c.old)} → ${show(c.new)}`),
  ];
}

export const changeCount = (changes: ConfigDiff) =>
  changes.added.length + changes.removed.length + changes.changed.length;

export function changeSummary(changes: ConfigDiff): string {
  const n = changeCount(changes);
  return `${n} ${n === 1 ? 'change' : 'changes'} (${changes.added.length} added, ${changes.removed.length} removed, ${changes.changed.length} changed)`;
}
