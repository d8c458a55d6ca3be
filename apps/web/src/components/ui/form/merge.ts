/**
 * Three versions of a form's values: what the operator started from (`base`), what they made of
 * it (`mine`) and what someone else saved meanwhile (`theirs`). Compared field by field: objects
 * key by key, lists item by item while they keep their length (a list that grew or shrank in any
 * version is one field, compared whole).
 */

export interface FieldChange {
  /** The form path: "deleteAgeSeconds", "servers.0.description", "servers". */
  path: string;
  base: unknown;
  mine: unknown;
  theirs: unknown;
  /** The operator changed it. */
  byMe: boolean;
  /** Someone else changed it. */
  byThem: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** null, undefined and NaN (an emptied number box) are one "empty". */
const isEmpty = (v: unknown) => v === null || v === undefined || Number.isNaN(v);

export function sameValue(a: unknown, b: unknown): boolean {
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => sameValue(item, b[i]))
    );
  }
  if (isRecord(a) || isRecord(b)) {
    if (!isRecord(a) || !isRecord(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameValue(a[k], b[k]));
  }
  return a === b;
}

function walk(path: string, base: unknown, mine: unknown, theirs: unknown, out: FieldChange[]) {
  const join = (key: string | number) => (path ? `${path}.${key}` : String(key));
  if (isRecord(base) && isRecord(mine) && isRecord(theirs)) {
    const keys = new Set([...Object.keys(base), ...Object.keys(mine), ...Object.keys(theirs)]);
    for (const key of keys) walk(join(key), base[key], mine[key], theirs[key], out);
    return;
  }
  if (
    Array.isArray(base) &&
    Array.isArray(mine) &&
    Array.isArray(theirs) &&
    base.length === mine.length &&
    base.length === theirs.length
  ) {
    base.forEach((item, i) => walk(join(i), item, mine[i], theirs[i], out));
    return;
  }
  const byMe = !sameValue(base, mine);
  const byThem = !sameValue(base, theirs);
  if (byMe || byThem) out.push({ path, base, mine, theirs, byMe, byThem });
}

/** Every field that the operator or someone else changed, in the form's order. */
export function changesOf(base: unknown, mine: unknown, theirs: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  walk('', base, mine, theirs, out);
  return out;
}

/** Both changed it, to different values: the operator's value is the one that will be saved. */
export const isConflict = (c: FieldChange) => c.byMe && c.byThem && !sameValue(c.mine, c.theirs);
