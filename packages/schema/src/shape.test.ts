import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultsOf, fieldPaths, fieldsOf } from './shape.ts';
import { targetSetFieldsSchema, targetSetServerSchema } from './target-set.ts';

const schema = z.strictObject({
  name: z.string(),
  port: z.number().default(3868),
  section: z
    .strictObject({ on: z.boolean().default(true), size: z.number().default(1) })
    .prefault({}),
  other: z.strictObject({ address: z.string() }).nullable().default(null),
  list: z.array(z.strictObject({ a: z.string() })).optional(),
});

describe('reading a schema’s shape', () => {
  it('names every field by its path, a section by its own fields, a list as one', () => {
    expect(fieldPaths(schema)).toEqual([
      'name',
      'port',
      'section.on',
      'section.size',
      'other.address',
      'list',
    ]);
  });

  it('gives each field left out what it becomes, and no field without a default', () => {
    expect(defaultsOf(z.strictObject({ a: z.number().default(1), b: z.string() }))).toEqual({
      a: 1,
    });
    expect(defaultsOf(targetSetServerSchema)).toEqual({
      secondaryAddress: null,
      description: '',
      weight: 100,
    });
    const defaults = defaultsOf(targetSetFieldsSchema);
    expect(defaults).toMatchObject({ protocols: 'both', algorithm: 'leastLoad', secondary: null });
    expect(defaults.leastLoad).toEqual({
      mpsFactor: 50,
      connectionCountFactor: 50,
      allowedDeviation: 5,
      peerNodeAware: true,
      peerNodeThreshold: 1,
    });
    expect(defaultsOf(targetSetFieldsSchema).leastLoad).not.toBe(defaults.leastLoad);
  });

  it('keeps only the schema’s fields of a value, in the schema’s order', () => {
    const view = { extra: 1, port: 2, name: 'n' };
    expect(Object.entries(fieldsOf(schema, view))).toEqual([
      ['name', 'n'],
      ['port', 2],
    ]);
  });
});
