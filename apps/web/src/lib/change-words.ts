import { fieldLabel, type ConfigDiff } from '@ipfe/schema';

/** The entities of the configuration as the GUI names them ("Target Set 7", "XSI network xsi1"). */
const NOUNS: Record<string, string> = {
  targetSets: 'Target Set',
  appServers: 'Application server',
  xsiNetworks: 'XSI network',
  peerNodeGroups: 'Peer node group',
};

/**
 * A path of a configuration change (`keyedConfig`'s) in the GUI's words:
 * "targetSets.2.deleteAgeSeconds" → "Target Set 2 · Delete Age (s)", "options.mateIntervalMs" →
 * "Options · Mate beacon interval (ms)". A name may hold dots (application servers): the entity's
 * name is the shortest one after which a field the GUI names follows.
 */
export function changeWhat(path: string): string {
  const [collection = '', ...rest] = path.split('.');
  if (collection === 'options') {
    const field = rest.join('.');
    return field === '' ? 'Options' : `Options · ${fieldWords(field)}`;
  }
  const noun = Object.hasOwn(NOUNS, collection) ? NOUNS[collection] : undefined;
  if (!noun || rest.length === 0) return path;
  for (let k = 1; k < rest.length; k++) {
    const label = guiLabel(rest.slice(k).join('.'));
    if (label !== null) return `${noun} ${rest.slice(0, k).join('.')} · ${label}`;
  }
  return `${noun} ${rest.join('.')}`;
}

/** Fields a page shows but never names in a message (the system allocates them). */
const SHOWN_ONLY: Record<string, string> = {
  initiatorPortRange: 'Initiator Port Range',
  'initiatorPortRange.start': 'Initiator Port Range start',
  'initiatorPortRange.end': 'Initiator Port Range end',
};

const guiLabel = (field: string): string | null =>
  fieldLabel(field) ?? (Object.hasOwn(SHOWN_ONLY, field) ? SHOWN_ONLY[field]! : null);

/** A field's GUI label, or its path spelt out ("mateIntervalMs" → "mate interval ms"). */
function fieldWords(field: string): string {
  return (
    guiLabel(field) ??
    field
      .split('.')
      .map((part) => part.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase())
      .join(' › ')
  );
}

const IDENTITY = new Set(['name', 'number']);

/** A value of a change as the pages show values: Yes/No, lists joined, an entity summarised. */
export function changeValue(value: unknown): string {
  if (value === undefined) return '—';
  if (value === null) return 'none';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number' || typeof value === 'string') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return 'none';
    return value.map(changeValue).join(', ');
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 2 && typeof record.start === 'number' && typeof record.end === 'number')
    return `${record.start}–${record.end}`;
  // What names the entity first, as its page does; the rest as the document has them.
  const entries = Object.entries(record)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => Number(IDENTITY.has(b)) - Number(IDENTITY.has(a)));
  return entries.map(([key, v]) => `${fieldWords(key)}: ${changeValue(v)}`).join('; ');
}

export type ChangeKind = 'Added' | 'Removed' | 'Changed';

/** One line of a change list: what a commit adds, removes or changes, by its `keyedConfig` path. */
export interface ChangeRow {
  kind: ChangeKind;
  path: string;
  old?: unknown;
  new?: unknown;
}

const byPath = new Intl.Collator('en', { numeric: true });

/**
 * The lines of a change list, from a diff of two configurations (an import's preview or two
 * revisions): the changes of one entity next to each other, Target Set 2 before Target Set 10.
 */
export function changeRows(diff: ConfigDiff): ChangeRow[] {
  return [
    ...diff.added.map((c): ChangeRow => ({ kind: 'Added', path: c.path, new: c.value })),
    ...diff.removed.map((c): ChangeRow => ({ kind: 'Removed', path: c.path, old: c.value })),
    ...diff.changed.map((c): ChangeRow => ({
      kind: 'Changed',
      path: c.path,
      old: c.old,
      new: c.new,
    })),
  ].sort((a, b) => byPath.compare(a.path, b.path));
}
