import type { TargetSet } from '@ipfe/schema';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { useWatch, type Control } from 'react-hook-form';
import type { FieldIssue } from '@/lib/api-client';
import {
  checkInContext,
  secondaryGap,
  type ContextIssues,
  type TargetSetContext,
  type TargetSetFormValues,
} from './form-model';

type FormControl = Control<TargetSetFormValues, unknown, TargetSet>;

export interface LiveIssues extends ContextIssues {
  /** A Secondary Address the rows' servers have no address of its family for. */
  secondaryNote: string | null;
}

/** What the checks that follow the typing say about the form's values. */
export function liveIssues(values: TargetSetFormValues, context: TargetSetContext): LiveIssues {
  return {
    ...checkInContext(values, context),
    // Live, not when the field is left: it follows the rows' choices, and a message that appeared
    // as the field is left would move Add server away from under the operator's click.
    secondaryNote: secondaryGap(
      context.appServers,
      values.servers ?? [],
      values.secondary?.address ?? '',
    ),
  };
}

/** The message of the first issue at `path`, looked for in each list in turn. */
export function messageAt(path: string, ...lists: readonly FieldIssue[][]): string | undefined {
  for (const list of lists) {
    const found = list.find((issue) => issue.path === path);
    if (found) return found.message;
  }
  return undefined;
}

/**
 * The rules that span entities, on every field as typed (`liveIssues`). The form renders `checks`
 * once: it subscribes to every field, one render behind the typing (a keystroke paints first),
 * and hands the form `issues` only when what they say changes, so that a keystroke in a row does
 * not render the whole form.
 */
export function useLiveIssues(
  control: FormControl,
  values: () => TargetSetFormValues,
  context: TargetSetContext,
) {
  const [issues, setIssues] = useState<LiveIssues>(() => liveIssues(values(), context));
  return {
    issues,
    checks: <LiveChecks control={control} context={context} onChange={setIssues} />,
  };
}

function LiveChecks({
  control,
  context,
  onChange,
}: {
  control: FormControl;
  context: TargetSetContext;
  onChange: (issues: LiveIssues) => void;
}) {
  const values = useDeferredValue(useWatch({ control }) as TargetSetFormValues);
  const said = JSON.stringify(useMemo(() => liveIssues(values, context), [values, context]));
  useEffect(() => onChange(JSON.parse(said) as LiveIssues), [said, onChange]);
  return null;
}
