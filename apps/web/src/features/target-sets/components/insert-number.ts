import { unusedTargetSetNumbers } from '@ipfe/schema';
import { useEffect, useState } from 'react';
import type { UseFormReturn } from 'react-hook-form';
import { insertNumber, type TargetSetFormValues } from './form-model';

type Targets = readonly { number: number }[];

/**
 * The number Insert must hold instead of `chosen` because another client has taken it meanwhile:
 * the lowest unused one (NaN: none is left); null while `chosen` is still free. An Edit keeps its
 * number, and NaN (nothing left to offer) stays.
 */
export function replacementNumber(chosen: number, targetSets: Targets, editing: boolean) {
  if (editing || Number.isNaN(chosen)) return null;
  return unusedTargetSetNumbers(targetSets).includes(chosen) ? null : insertNumber(targetSets);
}

/** Why the TS Number changed under the operator: `taken` was inserted by someone else. */
export function takenNumberNote(taken: number | null, chosen: number): string | undefined {
  if (taken === null || taken === chosen) return undefined;
  const now = Number.isNaN(chosen)
    ? 'no number is left'
    : `${chosen} is the lowest unused number now`;
  return `Target Set ${taken} was inserted by someone else meanwhile; ${now}.`;
}

/**
 * Insert's TS Number: the pull-down offers the numbers unused as the Target Sets were last read.
 * When another client has taken the chosen one meanwhile, it is no longer offered: the form then
 * holds, and shows, the lowest unused number, and says why it changed (`note`).
 */
export function useInsertNumber(
  form: Pick<UseFormReturn<TargetSetFormValues, unknown, unknown>, 'setValue' | 'trigger'>,
  { chosen, targetSets, editing }: { chosen: number; targetSets: Targets; editing: boolean },
) {
  const [taken, setTaken] = useState<number | null>(null);
  const replacement = replacementNumber(chosen, targetSets, editing);
  const { setValue, trigger } = form;
  useEffect(() => {
    if (replacement === null) return;
    setTaken(chosen);
    setValue('number', replacement, { shouldDirty: true });
    void trigger('number');
  }, [replacement, chosen, setValue, trigger]);
  return { numbers: unusedTargetSetNumbers(targetSets), note: takenNumberNote(taken, chosen) };
}
