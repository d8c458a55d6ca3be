import { TARGET_SET_NUMBER } from './limits.ts';

/**
 * The Target Set numbers free for an insert (and `keep`, the one being edited), lowest first: the
 * Insert page offers them, and an insert that names none takes the first.
 */
export function unusedTargetSetNumbers(
  targetSets: readonly { number: number }[],
  keep?: number,
): number[] {
  const used = new Set(targetSets.map((t) => t.number));
  const out: number[] = [];
  for (let n = TARGET_SET_NUMBER.min; n <= TARGET_SET_NUMBER.max; n++) {
    if (!used.has(n) || n === keep) out.push(n);
  }
  return out;
}

/** The number an insert that names none takes; null when every number is in use. */
export const lowestUnusedTargetSetNumber = (targetSets: readonly { number: number }[]) =>
  unusedTargetSetNumbers(targetSets)[0] ?? null;
