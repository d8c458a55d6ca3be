import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import {
  FormProvider,
  get,
  set,
  useForm,
  useFormState,
  type DefaultValues,
  type FieldErrors,
  type FieldPath,
  type FieldValues,
  type Resolver,
  type SubmitHandler,
  type UseFormRegister,
  type UseFormReturn,
} from 'react-hook-form';
import { z } from 'zod';
import type { FieldIssue } from '@/lib/api-client';
import { focusFirstError } from './focus-first-error';

export { focusFirstError } from './focus-first-error';

/**
 * A schema over the form's values: the form's own shape (strings where the operator types text,
 * one object per section) is turned into the API's shape, then validated by the shared schema of
 * `@ipfe/schema`. Issue paths are the API's, which the forms mirror field for field.
 */
export function formSchema<F extends FieldValues, S extends z.ZodType>(
  toBody: (values: F) => unknown,
  schema: S,
): z.ZodType<z.output<S>, F> {
  return z.preprocess((values) => toBody(values as F), schema) as unknown as z.ZodType<
    z.output<S>,
    F
  >;
}

/** Where an issue shows in the form: a list's own issue (e.g. "servers") is its `root`. */
export function formPath(path: string, arrayFields: readonly string[] = []): string {
  return arrayFields.includes(path) ? `${path}.root` : path;
}

/**
 * Adds the issues of checks that span entities (an address that must lie on an XSI network, an
 * IP list that partly overlaps another) to the schema's, where a field has no error yet.
 */
function withChecks<F extends FieldValues, C, O>(
  resolver: Resolver<F, C, O>,
  check: ((values: F) => FieldIssue[]) | undefined,
  arrayFields: readonly string[],
): Resolver<F, C, O> {
  if (!check) return resolver;
  return async (values, context, options) => {
    const result = await resolver(values, context, options);
    const extra = check(values);
    if (extra.length === 0) return result;
    const errors = { ...result.errors } as FieldErrors<F>;
    let added = false;
    for (const issue of extra) {
      const path = formPath(issue.path, arrayFields);
      if (get(errors, path)) continue;
      set(errors, path, { type: 'rule', message: issue.message });
      added = true;
    }
    return added ? { values: {}, errors } : result;
  };
}

/**
 * After Add or Remove on a list, react-hook-form checks the whole list and shows every row's
 * errors at once, a new empty row's too. Keep a row field's error only where the operator has
 * been (touched), or where an error already shows: a new row speaks once it is left or saved.
 */
function onlyWhereTheOperatorHasBeen<F extends FieldValues, C, O>(
  resolver: Resolver<F, C, O>,
  form: { current: UseFormReturn<F, unknown, O> | null },
  arrayFields: readonly string[],
): Resolver<F, C, O> {
  return async (values, context, options) => {
    const result = await resolver(values, context, options);
    const list = options.names?.length === 1 ? options.names[0]! : null;
    const current = form.current;
    if (!current || list === null || !arrayFields.includes(list)) return result;
    const rows = get(result.errors, list) as Record<string, unknown> | undefined;
    if (!rows || typeof rows !== 'object') return result;
    const errors = { ...result.errors } as FieldErrors<F>;
    const kept = (Array.isArray(rows) ? [] : {}) as Record<string, unknown>;
    for (const [index, row] of Object.entries(rows)) {
      if (!/^\d+$/.test(index) || !row || typeof row !== 'object') {
        kept[index] = row;
        continue;
      }
      const fields: Record<string, unknown> = {};
      for (const [field, error] of Object.entries(row as Record<string, unknown>)) {
        const state = current.getFieldState(`${list}.${index}.${field}` as FieldPath<F>);
        if (state.isTouched || state.error) fields[field] = error;
      }
      if (Object.keys(fields).length > 0) kept[index] = fields;
    }
    set(errors, list, kept);
    return { values: {}, errors };
  };
}

/**
 * A field left by pressing a button (Add server, Remove) is checked once the click is over: a
 * message that appeared under it at the press would move the button away from under the pointer,
 * and the click would be lost.
 */
const pressedButton = (() => {
  let pressed = false;
  let after: (() => void)[] = [];
  if (typeof document !== 'undefined') {
    document.addEventListener(
      'pointerdown',
      (event) => {
        pressed = event.target instanceof Element && event.target.closest('button') !== null;
      },
      true,
    );
    const flush = () => {
      pressed = false;
      const queued = after;
      after = [];
      for (const run of queued) run();
    };
    // After the click that follows the release.
    const release = () => void setTimeout(flush);
    document.addEventListener('pointerup', release, true);
    document.addEventListener('pointercancel', release, true);
    // A release the page never saw (outside the window) must not hold checks back for good.
    document.addEventListener('keydown', flush, true);
  }
  return {
    /** Runs `check` now, or after the click of the button being pressed. */
    settle(check: () => Promise<unknown>): Promise<unknown> {
      if (!pressed) return check();
      return new Promise((resolve) => after.push(() => resolve(check())));
    },
  };
})();

/**
 * An error shows until the value is right, not until the field is left: a field that shows an
 * error is checked again as it changes, even before it was first left (an error a list's or
 * another field's check put there; a pull-down chosen with the mouse is not left).
 */
function recheckingErrors<F extends FieldValues, O>(
  form: UseFormReturn<F, unknown, O>,
  rules: readonly FieldRule[],
): UseFormRegister<F> {
  return (name, options) => {
    // The rules that read this field and show on another one.
    const shownElsewhere = rules.filter((r) => r.path !== name && r.reads.includes(name));
    const deps = shownElsewhere.map((r) => r.path as FieldPath<F>);
    const registration = form.register(
      name,
      deps.length > 0 ? ({ ...options, deps } as typeof options) : options,
    );
    return {
      ...registration,
      onBlur: (event) => pressedButton.settle(() => registration.onBlur(event)) as Promise<void>,
      onChange: async (event) => {
        const result = await registration.onChange(event);
        const state = form.getFieldState(name);
        if (state.error && !state.isTouched && !form.formState.isSubmitted) {
          await form.trigger(name);
        }
        // A typed box checks its rules when it is checked itself (`deps`); a choice is not left,
        // so its change counts at once.
        if (deps.length > 0 && isChoice(event)) await form.trigger(deps);
        return result;
      },
    };
  };
}

const isChoice = (event: { target?: unknown }) => {
  const target = event.target;
  return (
    target instanceof HTMLSelectElement ||
    (target instanceof HTMLInputElement && (target.type === 'radio' || target.type === 'checkbox'))
  );
};

/**
 * A rule of the schema between fields (e.g. `FACTOR_PAIR_RULE`): the field its issue shows on and
 * the fields it reads. The form checks it again as one of those changes.
 */
export interface FieldRule {
  path: string;
  reads: readonly string[];
}

export interface UseSchemaFormOptions<F extends FieldValues, O> {
  schema: z.ZodType<O, F>;
  defaultValues: DefaultValues<F>;
  /** Cross-entity checks run after the schema; their paths are the schema's. */
  check?: (values: F) => FieldIssue[];
  /** Fields that hold lists: an issue at the list itself shows as the list's `root` error. */
  arrayFields?: readonly string[];
  /** The schema's rules between fields, checked again as a field they read changes. */
  rules?: readonly FieldRule[];
}

const NO_RULES: readonly FieldRule[] = [];

/** react-hook-form with the shared schema: errors show when a field is left, then as it changes. */
export function useSchemaForm<F extends FieldValues, O>({
  schema,
  defaultValues,
  check,
  arrayFields = [],
  rules = NO_RULES,
}: UseSchemaFormOptions<F, O>): UseFormReturn<F, unknown, O> {
  const self = useRef<UseFormReturn<F, unknown, O> | null>(null);
  const resolver = zodResolver(schema as never) as unknown as Resolver<F, unknown, O>;
  const form = useForm<F, unknown, O>({
    mode: 'onTouched',
    reValidateMode: 'onChange',
    defaultValues,
    resolver: onlyWhereTheOperatorHasBeen(
      withChecks(resolver, check, arrayFields),
      self,
      arrayFields,
    ),
  });
  self.current = form;
  const register = useMemo(() => recheckingErrors(form, rules), [form, rules]);
  // Spread on every render: `formState` is this render's.
  return { ...form, register };
}

/**
 * Puts the server's field errors beside their fields. `place` maps an API path to the form field
 * that shows it (null: no field does). A field with several shows the first, as the form's own
 * checks do (the summary lists them all). Answers the issues no field shows.
 */
export function applyServerErrors<F extends FieldValues, O>(
  form: UseFormReturn<F, unknown, O>,
  fields: FieldIssue[],
  place: (path: string) => string | null,
): FieldIssue[] {
  const unplaced: FieldIssue[] = [];
  const placed = new Set<string>();
  for (const issue of fields) {
    const path = place(issue.path);
    if (path === null) {
      unplaced.push(issue);
      continue;
    }
    if (placed.has(path)) continue;
    placed.add(path);
    form.setError(path as never, { type: 'server', message: issue.message });
  }
  return unplaced;
}

export function Form<F extends FieldValues, O>({
  form,
  onSubmit,
  children,
  label,
  className,
}: {
  form: UseFormReturn<F, unknown, O>;
  onSubmit: SubmitHandler<O>;
  children: ReactNode;
  label: string;
  className?: string;
}) {
  const element = useRef<HTMLFormElement>(null);
  const { isSubmitting, submitCount } = useFormState({ control: form.control });
  const wasSubmitting = useRef(false);
  const focusAtSubmit = useRef<Element | null>(null);
  useEffect(() => {
    if (wasSubmitting.current && !isSubmitting && element.current) {
      focusFirstError(element.current, focusAtSubmit.current);
    }
    wasSubmitting.current = isSubmitting;
  }, [isSubmitting, submitCount]);
  return (
    <FormProvider {...form}>
      <form
        ref={element}
        noValidate
        aria-label={label}
        className={className}
        onSubmit={(event) => {
          focusAtSubmit.current = document.activeElement;
          void form.handleSubmit(onSubmit)(event);
        }}
      >
        {children}
      </form>
    </FormProvider>
  );
}

/** The first message found in an error subtree (a list field's errors are nested per item). */
export function messageOf(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const record = error as Record<string, unknown>;
  if (typeof record.message === 'string' && record.message) return record.message;
  for (const [key, value] of Object.entries(record)) {
    if (key === 'ref') continue;
    const found = messageOf(value);
    if (found) return found;
  }
  return undefined;
}
