import { zodResolver } from '@hookform/resolvers/zod';
import type { ReactNode } from 'react';
import {
  FormProvider,
  get,
  set,
  useForm,
  type DefaultValues,
  type FieldErrors,
  type FieldValues,
  type Resolver,
  type SubmitHandler,
  type UseFormReturn,
} from 'react-hook-form';
import { z } from 'zod';
import type { FieldIssue } from '@/lib/api-client';

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

export interface UseSchemaFormOptions<F extends FieldValues, O> {
  schema: z.ZodType<O, F>;
  defaultValues: DefaultValues<F>;
  /** Cross-entity checks run after the schema; their paths are the schema's. */
  check?: (values: F) => FieldIssue[];
  /** Fields that hold lists: an issue at the list itself shows as the list's `root` error. */
  arrayFields?: readonly string[];
}

/** react-hook-form with the shared schema: errors show when a field is left, then as it changes. */
export function useSchemaForm<F extends FieldValues, O>({
  schema,
  defaultValues,
  check,
  arrayFields = [],
}: UseSchemaFormOptions<F, O>): UseFormReturn<F, unknown, O> {
  const resolver = zodResolver(schema as never) as unknown as Resolver<F, unknown, O>;
  return useForm<F, unknown, O>({
    mode: 'onTouched',
    reValidateMode: 'onChange',
    defaultValues,
    resolver: withChecks(resolver, check, arrayFields),
  });
}

/**
 * Puts the server's field errors beside their fields. `place` maps an API path to the form field
 * that shows it (null: no field does). Answers the issues no field shows.
 */
export function applyServerErrors<F extends FieldValues, O>(
  form: UseFormReturn<F, unknown, O>,
  fields: FieldIssue[],
  place: (path: string) => string | null,
): FieldIssue[] {
  const unplaced: FieldIssue[] = [];
  for (const issue of fields) {
    const path = place(issue.path);
    if (path === null) {
      unplaced.push(issue);
      continue;
    }
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
  return (
    <FormProvider {...form}>
      <form
        noValidate
        aria-label={label}
        className={className}
        onSubmit={(event) => void form.handleSubmit(onSubmit)(event)}
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
