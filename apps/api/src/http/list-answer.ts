/** The members of an object's JSON: `{"a":1,"b":2}` → `"a":1,"b":2`; `{}` → ``. */
const membersOf = (json: string) => json.slice(1, -1);

interface Entry<T> {
  item: T;
  view: object;
  warnings: unknown[];
  viewMembers: string;
  warningsMember: string;
}

/**
 * The answer of a list route, `{"items":[…]}` with each item `{ ...view, ...live, warnings }`,
 * for one revision: the views and warnings (a function of the revision) are serialized once,
 * and only the live fields, when the collection has any, are serialized per request. The bytes
 * are those of `JSON.stringify({ items: entries.map(({ view, warnings }) => ({ ...view,
 * ...live(item), warnings })) })`; the last answer is kept while the live fields stay the same.
 */
export class ListAnswer<T> {
  private readonly entries: Entry<T>[];
  private last: { liveKey: string; body: Buffer; flat: unknown[] | null } | null = null;
  private readonly viewsHaveWarnings: boolean;

  constructor(entries: readonly { item: T; view: object; warnings: unknown[] }[]) {
    this.entries = entries.map(({ item, view, warnings }) => ({
      item,
      view,
      warnings,
      viewMembers: membersOf(JSON.stringify(view)),
      warningsMember: `"warnings":${JSON.stringify(warnings)}`,
    }));
    this.viewsHaveWarnings = entries.some(({ view }) => Object.hasOwn(view, 'warnings'));
  }

  /** The answer's bytes, with the live fields `liveOf` gives each item now (none without it). */
  body(liveOf?: (item: T) => object): Buffer {
    const lives = liveOf ? this.entries.map((entry) => liveOf(entry.item)) : null;
    // The same names and plain values, in the same order, as the last answer: its bytes.
    if (this.last?.flat && lives && sameFlat(this.last.flat, lives)) return this.last.body;
    const clash = lives?.some((live, i) => clashes(this.entries[i]!.view, live)) ?? false;
    if (this.viewsHaveWarnings || clash) {
      // A field of the view named again keeps the view's place: the plain way, and not kept.
      const items = this.entries.map(({ view, warnings }, i) => ({
        ...view,
        ...lives?.[i],
        warnings,
      }));
      return Buffer.from(JSON.stringify({ items }));
    }
    const liveMembers = lives ? lives.map((live) => membersOf(JSON.stringify(live))) : [];
    // JSON text never holds a raw line feed: the members joined by one name the live state.
    const liveKey = liveMembers.join('\n');
    if (this.last?.liveKey === liveKey) return this.last.body;
    const items = this.entries.map((entry, i) => {
      const members = [entry.viewMembers, liveMembers[i] ?? '', entry.warningsMember];
      return `{${members.filter((m) => m !== '').join(',')}}`;
    });
    const body = Buffer.from(`{"items":[${items.join(',')}]}`);
    this.last = { liveKey, body, flat: lives && flatten(lives) };
    return body;
  }
}

/** Whether a live field is named like a field of the view, or `warnings`. */
function clashes(view: object, live: object): boolean {
  return Object.keys(live).some((key) => key === 'warnings' || Object.hasOwn(view, key));
}

const isPlain = (value: unknown) => value === null || typeof value !== 'object';

/**
 * The live fields as one array (each item's names and values, then `FLAT_END`), when every value
 * is a string, number, boolean, null or undefined: a copy that later changes to the objects
 * cannot reach. Null when a value is an object or array (compared by their JSON instead).
 */
function flatten(lives: object[]): unknown[] | null {
  const flat: unknown[] = [];
  for (const live of lives) {
    for (const [key, value] of Object.entries(live)) {
      if (!isPlain(value) || typeof value === 'function' || typeof value === 'symbol') return null;
      flat.push(key, value);
    }
    flat.push(FLAT_END);
  }
  return flat;
}

const FLAT_END = Symbol('end of an item');

/** Whether `lives` has exactly the names and values, in the same order, that `flat` holds. */
function sameFlat(flat: unknown[], lives: object[]): boolean {
  let i = 0;
  for (const live of lives) {
    for (const key in live) {
      if (!Object.hasOwn(live, key)) return false;
      if (flat[i] !== key || flat[i + 1] !== (live as Record<string, unknown>)[key]) return false;
      i += 2;
    }
    if (flat[i++] !== FLAT_END) return false;
  }
  return i === flat.length;
}
