import { z } from 'zod';

/** A field's object schema, through its optional, nullable and default wrappers; else null. */
function objectIn(field: z.core.SomeType): z.ZodObject | null {
  let inner = field;
  while (
    inner instanceof z.ZodOptional ||
    inner instanceof z.ZodNullable ||
    inner instanceof z.ZodDefault ||
    inner instanceof z.ZodPrefault
  ) {
    inner = inner.unwrap();
  }
  return inner instanceof z.ZodObject ? inner : null;
}

/**
 * Every field of an object schema as a dotted path, in the schema's order: a field that holds an
 * object (a section) is named by its own fields ("leastLoad.mpsFactor"); a list is one field.
 */
export function fieldPaths(schema: z.ZodObject, prefix = ''): string[] {
  return Object.entries(schema.shape).flatMap(([key, field]) => {
    const inner = objectIn(field);
    return inner ? fieldPaths(inner, `${prefix}${key}.`) : [`${prefix}${key}`];
  });
}

/** The fields that may be left out, with what they then become. */
export type Defaults<S extends z.ZodObject> = {
  [K in keyof z.input<S> as undefined extends z.input<S>[K] ? K : never]-?: z.output<S>[K &
    keyof z.output<S>];
};

/**
 * What the fields of an object schema become when they are left out: its defaults, field by
 * field, read from the schema itself (a new object on every call). A field without a default is
 * not named; an optional one is undefined.
 */
export function defaultsOf<S extends z.ZodObject>(schema: S): Defaults<S> {
  const defaults: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const left = (field as z.ZodType).safeParse(undefined);
    if (left.success && left.data !== undefined) defaults[key] = left.data;
  }
  return defaults as Defaults<S>;
}

/** The fields of an object schema that `value` holds, and nothing else (a view's extras go). */
export function fieldsOf<S extends z.ZodObject, T extends object>(
  schema: S,
  value: T,
): Pick<T, keyof S['shape'] & keyof T> {
  return Object.fromEntries(
    Object.keys(schema.shape)
      .filter((key) => key in value)
      .map((key) => [key, (value as Record<string, unknown>)[key]]),
  ) as Pick<T, keyof S['shape'] & keyof T>;
}
