import { TARGET_SET_NUMBER } from '@ipfe/schema';

// Apart from form-model so that the View (and its Insert buttons) loads without the schemas.

/** The Target Set numbers free for an insert (and `keep`, the one being edited), lowest first. */
export function unusedNumbers(targetSets: { number: number }[], keep?: number): number[] {
  const used = new Set(targetSets.map((t) => t.number));
  const out: number[] = [];
  for (let n = TARGET_SET_NUMBER.min; n <= TARGET_SET_NUMBER.max; n++) {
    if (!used.has(n) || n === keep) out.push(n);
  }
  return out;
}

/** Why no Target Set can be inserted: every number is in use; null while one is free. */
export const insertRefusal = (targetSets: { number: number }[]): string | null =>
  unusedNumbers(targetSets).length === 0
    ? `All ${TARGET_SET_NUMBER.max} Target Set numbers are in use`
    : null;
