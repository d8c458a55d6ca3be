import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import {
  useFormContext,
  useFormState,
  type FieldValues,
  type UseFormReturn,
} from 'react-hook-form';
import { useLocation } from 'react-router';
import { issueText } from '@ipfe/schema';
import { ApiError } from '@/lib/api-client';
import { NOTHING_TO_SAVE } from '@/lib/commits';
import { sessionQueryKey, type SessionUser } from '@/lib/auth';
import {
  handOver,
  markEnded,
  markSaving,
  readDraft,
  removeDraft,
  takeHandOver,
  withoutSecrets,
  writeDraft,
} from '@/lib/drafts';
import { Alert } from '../alert';
import { describeChanges, KeptEditsNotice, type KeptEdits } from './edit-conflict';
import { applyServerErrors } from './form';
import { restoreOf } from './draft-restore';
import { changesOf, sameValue } from './merge';
import { useCarriedOutcome, type SaveOutcome } from './carried-outcome';

export { CarriedOutcomeProvider, useCarriedOutcome, type SaveOutcome } from './carried-outcome';

/**
 * What a refused save means to the operator: field errors go beside their fields (and are listed
 * once more at the top); a stale ETag (412) is a conflict with someone else's save, never an
 * overwrite (SaveFeedback then loads their version and puts the operator's edits on top of it);
 * anything else is a plain message.
 */
export function outcomeOfError<F extends FieldValues, O>(
  error: unknown,
  form: UseFormReturn<F, unknown, O>,
  place: (path: string) => string | null,
  what: string,
): SaveOutcome {
  if (!(error instanceof ApiError)) {
    return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
  if (error.status === 412) {
    return {
      kind: 'stale',
      message: `Someone else saved ${what.replace(/^The /, 'the ')} after you opened it. Your changes were not saved and nothing was overwritten.`,
      what,
    };
  }
  if (error.fields.length > 0) {
    applyServerErrors(form, error.fields, place);
    return {
      kind: 'invalid',
      message: `${what} was not saved: the server found ${error.fields.length === 1 ? 'a problem' : `${error.fields.length} problems`}.`,
      issues: error.fields,
    };
  }
  return { kind: 'failed', message: `${what} was not saved: ${error.message}` };
}

function OutcomeAlert({ outcome, loading }: { outcome: SaveOutcome; loading: boolean }) {
  switch (outcome.kind) {
    case 'saved':
      return (
        <Alert
          tone={outcome.message === NOTHING_TO_SAVE ? 'info' : 'success'}
          title={outcome.message}
        >
          {outcome.warnings.length > 0 && (
            <ul className="issue-list">
              {outcome.warnings.map((w) => (
                <li key={`${w.path}:${w.message}`}>Warning: {w.message}</li>
              ))}
            </ul>
          )}
        </Alert>
      );
    case 'invalid':
      return (
        <Alert tone="error" title={outcome.message}>
          <ul className="issue-list">
            {outcome.issues.map((i) => (
              <li key={`${i.path}:${i.message}`}>{issueText(i)}</li>
            ))}
          </ul>
        </Alert>
      );
    case 'stale':
      return (
        <Alert tone="error" title="Changed by someone else">
          {outcome.message}
          {loading && ' Loading their version, to put your changes on top of it…'}
        </Alert>
      );
    case 'failed':
      return <Alert tone="error" title={outcome.message} />;
  }
}

/**
 * What the form was opened with, or last reset to (after Apply). From the control, which has it
 * at once: `formState` is the last render's, and a reset's watch callback runs before the next.
 */
const defaultsOf = (form: UseFormReturn<FieldValues>): unknown => form.control._defaultValues;

/**
 * The feedback of an Insert/Edit form, at its top, and the keeper of what the operator typed.
 *
 * - Only the latest save's feedback shows: a message from an earlier save (or from the page that
 *   sent the operator here) goes as soon as OK or Apply is pressed again, even when the form's own
 *   checks stop that save.
 * - A save refused because someone else saved first (412) loads their version (`onReload`) and
 *   puts the operator's edits back on top of it, field by field, with what they changed.
 * - Unsaved input is kept for this tab while the form is dirty; when the session ends (logged out
 *   elsewhere, expired) it outlives the page and comes back after the next login.
 */
export function SaveFeedback({
  outcome,
  onReload,
  name,
}: {
  outcome: SaveOutcome | null;
  onReload?: () => void;
  /** Which form of the page, where it has more than one (Options, SNMP traps): its drafts' own. */
  name?: string;
}) {
  const form = useFormContext();
  const { errors, isSubmitting } = useFormState({ control: form.control });
  const location = useLocation();
  const key = `${location.pathname}${location.search}${name ? `#${name}` : ''}`;
  const queryClient = useQueryClient();
  const carried = useCarriedOutcome();
  const root = useRef<HTMLDivElement>(null);

  // Save attempts, counted from the form's submit event: a submit that the form's checks stop
  // never reaches the save, yet it is the latest save as far as the operator is concerned.
  const [attempt, setAttempt] = useState(0);
  const firstSeen = useRef(new WeakMap<SaveOutcome, number>());
  const candidate = outcome ?? carried;
  if (candidate && !firstSeen.current.has(candidate)) firstSeen.current.set(candidate, attempt);
  const shown = candidate && firstSeen.current.get(candidate) === attempt ? candidate : null;

  const [kept, setKept] = useState<(KeptEdits & { attempt: number }) | null>(null);
  const keptShown = kept && kept.attempt === attempt ? kept : null;
  // The attempt at which this tab's own save, made just before a reload, was found saved.
  const [ownSave, setOwnSave] = useState<number | null>(null);
  const ownSaveShown = ownSave === attempt;

  useEffect(() => {
    const element = root.current?.closest('form');
    if (!element) return;
    const count = () => {
      // Before the request goes: a reload from here on may find the draft saved.
      markSaving(key, true);
      setAttempt((n) => n + 1);
    };
    element.addEventListener('submit', count);
    return () => element.removeEventListener('submit', count);
  }, [key]);

  // The save is over (refused, or Apply stays on the page): what is left is unsaved again.
  const wasSubmitting = useRef(false);
  useEffect(() => {
    if (wasSubmitting.current && !isSubmitting) markSaving(key, false);
    wasSubmitting.current = isSubmitting;
  }, [isSubmitting, key]);

  const userName = () =>
    queryClient.getQueryData<SessionUser | null>(sessionQueryKey)?.name ?? null;

  // Put back what was kept for this page: handed over by a refused save, or left by a session
  // that ended. `theirs` is the version this form was opened with.
  const restored = useRef(false);
  useEffect(() => {
    if (restored.current) return;
    restored.current = true;
    const handed = takeHandOver(key);
    const stored = handed ? null : readDraft(key);
    const draft = handed ?? (stored && stored.user === userName() ? stored : null);
    if (!draft) return;
    const defaults: unknown = defaultsOf(form);
    let changes;
    if (handed) changes = changesOf(draft.base, draft.mine, defaults);
    else {
      const restore = restoreOf(draft, withoutSecrets(defaults));
      if (restore.kind === 'nothing') return;
      if (restore.kind === 'own-save') {
        removeDraft(key);
        setOwnSave(attempt);
        return;
      }
      changes = restore.changes;
    }
    const rows = describeChanges(root.current?.closest('form') ?? document, changes);
    for (const c of changes) {
      if (c.byMe) form.setValue(c.path, c.mine, { shouldDirty: true });
    }
    setKept({
      reason: handed ? 'stale' : draft.ended ? 'session' : 'reload',
      what: handed?.what ?? null,
      rows,
      attempt,
    });
    // Once, on the form's first mount: later renders must not put anything back again.
  }, []);

  // After a refused save the page was built anew: focus and view go to what it says.
  useEffect(() => {
    if (kept?.reason !== 'stale') return;
    const alert = root.current?.querySelector<HTMLElement>('[role="alert"]');
    if (!alert) return;
    alert.tabIndex = -1;
    alert.focus();
  }, [kept]);

  // Keep the unsaved input while the form differs from what it was opened with.
  useEffect(() => {
    const write = () => {
      const base = withoutSecrets(defaultsOf(form));
      const mine = withoutSecrets(form.getValues());
      if (sameValue(base, mine)) removeDraft(key);
      else {
        // Still what is being saved: it stays marked so.
        const saving = Boolean(readDraft(key)?.saving && sameValue(readDraft(key)?.mine, mine));
        writeDraft(key, { user: userName(), base, mine, saving });
      }
    };
    write();
    const subscription = form.watch(write);
    return () => {
      subscription.unsubscribe();
      // Leaving the page (OK, Cancel, the menu) drops it; a session that ended keeps it.
      if (queryClient.getQueryData(sessionQueryKey) !== null) removeDraft(key);
      else markEnded(key);
    };
    // The form's methods come in a new object every render; its control is the form itself.
  }, [form.control, key, queryClient]);

  // Someone else saved first: hand the operator's edits to the form that shows their version.
  useEffect(() => {
    if (outcome?.kind !== 'stale' || !onReload) return;
    handOver(key, {
      reason: 'stale',
      what: outcome.what,
      user: userName(),
      base: defaultsOf(form),
      mine: form.getValues(),
    });
    onReload();
  }, [outcome]);

  const blocked =
    attempt > 0 && !shown && !keptShown && !isSubmitting && Object.keys(errors).length > 0;

  return (
    <div ref={root} className="save-feedback">
      {keptShown ? (
        <KeptEditsNotice
          kept={keptShown}
          onDiscard={() => {
            form.reset();
            setKept(null);
          }}
        />
      ) : ownSaveShown ? (
        <Alert tone="info" title="Your save went through before the page was loaded again">
          The form shows what you saved.
        </Alert>
      ) : shown ? (
        <OutcomeAlert outcome={shown} loading={shown.kind === 'stale' && Boolean(onReload)} />
      ) : (
        blocked && <Alert tone="error" title="Not saved: correct the fields marked below." />
      )}
    </div>
  );
}
