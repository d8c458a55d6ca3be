import type { Draft } from '@/lib/drafts';
import { changesOf, sameValue, type FieldChange } from './merge';

/**
 * What to do with a draft the tab kept for a page, once the page shows the version saved now:
 * - nothing: the draft holds no change of the operator's against what is shown;
 * - own-save: the draft was being saved when the page went (a reload during the save) and the
 *   version shown holds exactly its values: the save went through, it is this tab's own;
 * - restore: the operator's changes go back on the version they opened, which nobody changed;
 * - conflict: someone else saved meanwhile; the operator's changes go on top of their version.
 */
export type DraftRestore =
  | { kind: 'nothing' }
  | { kind: 'own-save' }
  | { kind: 'restore' | 'conflict'; changes: FieldChange[] };

export function restoreOf(draft: Draft, shown: unknown): DraftRestore {
  if (draft.saving && sameValue(draft.mine, shown)) return { kind: 'own-save' };
  const changes = changesOf(draft.base, draft.mine, shown);
  if (!changes.some((c) => c.byMe)) return { kind: 'nothing' };
  return { kind: changes.some((c) => c.byThem) ? 'conflict' : 'restore', changes };
}
