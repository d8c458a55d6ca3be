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
  private last: { liveKey: string; body: Buffer } | null = null;
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
    this.last = { liveKey, body };
    return body;
  }
}

/** Whether a live field is named like a field of the view, or `warnings`. */
function clashes(view: object, live: object): boolean {
  return Object.keys(live).some((key) => key === 'warnings' || Object.hasOwn(view, key));
}
