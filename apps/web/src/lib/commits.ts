import { useSyncExternalStore } from 'react';

/**
 * The newest configuration revision this browser committed (header x-ipfe-revision of a change),
 * so that the shell can follow its push to the IPFEs whatever page or form made it.
 */
export interface Commit {
  revision: number;
  /** When the answer arrived (ms since epoch). */
  at: number;
}

let latest: Commit | null = null;
const listeners = new Set<() => void>();

function emit() {
  for (const listener of listeners) listener();
}

/** A change answered with a new revision. Older numbers than the one followed are ignored. */
export function noteCommit(revision: number) {
  if (!Number.isInteger(revision) || revision < 1) return;
  if (latest && latest.revision >= revision) return;
  latest = { revision, at: Date.now() };
  emit();
}

/** The operator closed the progress panel: forget the commit. */
export function forgetCommit(revision: number) {
  if (latest?.revision !== revision) return;
  latest = null;
  emit();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const useLatestCommit = () =>
  useSyncExternalStore(
    subscribe,
    () => latest,
    () => null,
  );

export const latestCommit = () => latest;

/** What a save that changed nothing says: no revision was made and nothing is pushed. */
export const NOTHING_TO_SAVE = 'Nothing to save: no change.';

/** "Target Set 2 saved as revision 7.", or NOTHING_TO_SAVE when the save changed nothing. */
export function savedAs(
  subject: string,
  saved: { revision: number | null; unchanged?: boolean },
): string {
  return saved.unchanged
    ? NOTHING_TO_SAVE
    : `${subject} saved as revision ${saved.revision ?? '?'}.`;
}

/** For tests: start from nothing. */
export function resetCommits() {
  latest = null;
  emit();
}
