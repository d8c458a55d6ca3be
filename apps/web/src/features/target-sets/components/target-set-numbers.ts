import { TARGET_SET_NUMBER, unusedTargetSetNumbers } from '@ipfe/schema';

// Apart from form-model so that the View (and its Insert buttons) loads without the form.

/** Why no Target Set can be inserted: every number is in use; null while one is free. */
export const insertRefusal = (targetSets: { number: number }[]): string | null =>
  unusedTargetSetNumbers(targetSets).length === 0
    ? `All ${TARGET_SET_NUMBER.max} Target Set numbers are in use`
    : null;
