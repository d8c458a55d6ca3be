/**
 * Unsaved form input kept for this browser tab, keyed by the page's URL: what an operator had typed
 * on an Insert or Edit page when the session ended (logged out in another tab, or expired), to be
 * put back after they log in again. sessionStorage, so it belongs to the tab and goes with it.
 * Secrets (passwords, SNMP communities and keys) are never written.
 */

export interface Draft {
  /** Who typed it: another user logging in on this tab does not get it. */
  user: string | null;
  /** The form's values when the operator started (the saved version they edited). */
  base: unknown;
  /** The form's values as they were left. */
  mine: unknown;
  /** Left because the session ended (else the page was reloaded). */
  ended?: boolean;
  /**
   * `mine` was being sent to the server: a page that went meanwhile (a reload) may find it saved,
   * which is this tab's own save, not someone else's.
   */
  saving?: boolean;
}

/** A draft handed over in memory: after a refused save (412), to the form with their version. */
export interface PendingDraft extends Draft {
  reason: 'stale';
  /** "Target Set 4", "The options": what was being saved. */
  what: string;
}

const PREFIX = 'ipfe-draft:';

// Form values hold NaN for an emptied number box; JSON would turn it into null.
const NAN = { $nan: true };
const replacer = (_key: string, value: unknown) =>
  typeof value === 'number' && Number.isNaN(value) ? NAN : value;
const reviver = (_key: string, value: unknown) =>
  value && typeof value === 'object' && (value as { $nan?: unknown }).$nan === true
    ? Number.NaN
    : value;

/** A field whose name says it holds a secret: a password, an SNMP community, a key ("authKey"). */
const SECRET = /password|community|key$/i;

/** Drops every leaf whose name says it is a secret. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !SECRET.test(key))
        .map(([key, v]) => [key, withoutSecrets(v)]),
    );
  }
  return value;
}

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // storage disabled by the browser's settings
  }
}

export function readDraft(key: string): Draft | null {
  const raw = storage()?.getItem(PREFIX + key);
  if (!raw) return null;
  try {
    return JSON.parse(raw, reviver) as Draft;
  } catch {
    return null;
  }
}

export function writeDraft(key: string, draft: Draft) {
  const stored: Draft = {
    user: draft.user,
    base: withoutSecrets(draft.base),
    mine: withoutSecrets(draft.mine),
    ...(draft.ended ? { ended: true } : {}),
    ...(draft.saving ? { saving: true } : {}),
  };
  try {
    storage()?.setItem(PREFIX + key, JSON.stringify(stored, replacer));
  } catch {
    // Full or disabled: the form still works, only the safety net is missing.
  }
}

/** The page went because the session ended: say so when the draft comes back. */
export function markEnded(key: string) {
  const draft = readDraft(key);
  if (draft) writeDraft(key, { ...draft, ended: true });
}

/** A save of the draft starts (true) or is over, refused or not (false). */
export function markSaving(key: string, saving: boolean) {
  const draft = readDraft(key);
  if (draft && Boolean(draft.saving) !== saving) writeDraft(key, { ...draft, saving });
}

export function removeDraft(key: string) {
  storage()?.removeItem(PREFIX + key);
}

/** Every draft of this tab (on Log out), or every draft typed by someone else than `user`. */
export function removeDrafts(except?: { user: string }) {
  const store = storage();
  if (!store) return;
  const keys: string[] = [];
  for (let i = 0; i < store.length; i++) {
    const key = store.key(i);
    if (key?.startsWith(PREFIX)) keys.push(key);
  }
  for (const key of keys) {
    if (except && readDraft(key.slice(PREFIX.length))?.user === except.user) continue;
    store.removeItem(key);
  }
  if (!except) pending.clear();
}

const pending = new Map<string, PendingDraft>();

export function handOver(key: string, draft: PendingDraft) {
  pending.set(key, draft);
}

export function takeHandOver(key: string): PendingDraft | null {
  const draft = pending.get(key) ?? null;
  pending.delete(key);
  return draft;
}
