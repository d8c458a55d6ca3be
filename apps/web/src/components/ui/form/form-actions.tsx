import { useRef, useState } from 'react';
import { useFormState, type FieldValues, type UseFormReturn } from 'react-hook-form';
import type { FieldIssue, Versioned } from '@/lib/api-client';
import { savedAs } from '@/lib/commits';
import { Button } from '../button';
import { outcomeOfError, type SaveOutcome } from './save-feedback';

export type SaveIntent = 'ok' | 'apply';

/**
 * The save of every form. It keeps the ETag of the version the form shows (`etag`, as the form
 * was opened with it): each save sends it, and a save moves it on to the saved version. It is
 * never the query's latest: a background refetch may load someone else's newer version while the
 * form still shows the old one, and sending its ETag would overwrite their change silently.
 * Refusals are turned into field errors and a summary; `onSaved` decides where to go.
 */
export function useSave<F extends FieldValues, O, R>({
  form,
  save,
  place,
  what,
  onSaved,
  etag = null,
}: {
  form: UseFormReturn<F, unknown, O>;
  save: (body: O, etag: string | null) => Promise<Versioned<R>>;
  place: (path: string) => string | null;
  what: string;
  onSaved: (saved: Versioned<R>, intent: SaveIntent) => SaveOutcome | null;
  /** The ETag of the version the form was opened with (none for an Insert). */
  etag?: string | null | undefined;
}) {
  const intent = useRef<SaveIntent>('ok');
  const shown = useRef(etag);
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  const onSubmit = async (body: O) => {
    setOutcome(null);
    try {
      const saved = await save(body, shown.current);
      shown.current = saved.etag;
      setOutcome(onSaved(saved, intent.current));
    } catch (error) {
      setOutcome(outcomeOfError(error, form, place, what));
    }
  };
  return { onSubmit, outcome, setOutcome, intent };
}

/** What an Insert or Edit page gives its form. */
export interface EditPage<Body, Saved, Key> {
  /** Edit: the ETag of the version the form is opened with. */
  etag?: string | null;
  save: (body: Body, etag: string | null) => Promise<Saved>;
  /** After OK (what was saved) and on Cancel (null): back to the list. */
  onDone: (outcome: SaveOutcome | null) => void;
  /** After Apply on Insert: the entity now exists, and is edited from here on. */
  onInserted: (key: Key, outcome: SaveOutcome) => void;
  /** After a stale save: load the current version. */
  onReload: () => void;
}

/**
 * The save of an Insert/Edit page: OK saves and goes back to the list with what was saved; Apply
 * saves and stays, on the saved version (an Insert goes on to the Edit page of what it inserted).
 */
export function usePageSave<
  F extends FieldValues,
  O,
  Data extends { warnings: FieldIssue[] },
  Key,
>({
  form,
  page,
  inserting,
  what,
  place,
  title,
  keyOf,
  valuesOf,
}: {
  form: UseFormReturn<F, unknown, O>;
  page: EditPage<O, Versioned<Data>, Key>;
  inserting: boolean;
  /** What a refusal names: "The XSI network", "Target Set 3". */
  what: string;
  place: (path: string) => string | null;
  /** What was saved, as the message names it: "XSI network xsi1". */
  title: (saved: Data) => string;
  keyOf: (saved: Data) => Key;
  /** The form's values for the saved version (Apply goes on editing it). */
  valuesOf: (saved: Data) => F;
}) {
  return useSave({
    form,
    etag: page.etag,
    save: page.save,
    place,
    what,
    onSaved: (saved, how) => {
      const result: SaveOutcome = {
        kind: 'saved',
        message: savedAs(title(saved.data), saved),
        warnings: saved.data.warnings,
      };
      if (how === 'ok') {
        page.onDone(result);
        return null;
      }
      form.reset(valuesOf(saved.data));
      if (inserting) page.onInserted(keyOf(saved.data), result);
      return result;
    },
  });
}

/** OK, Apply and Cancel, disabled while the form saves (or is `busy` otherwise). */
export function FormActions({
  intent,
  busy = false,
  onCancel,
}: {
  intent: { current: SaveIntent };
  busy?: boolean;
  onCancel: () => void;
}) {
  const { isSubmitting } = useFormState();
  const disabled = busy || isSubmitting;
  return (
    <div className="form-actions">
      <Button
        type="submit"
        variant="primary"
        disabled={disabled}
        onClick={() => (intent.current = 'ok')}
      >
        OK
      </Button>
      <Button type="submit" disabled={disabled} onClick={() => (intent.current = 'apply')}>
        Apply
      </Button>
      <Button onClick={onCancel}>Cancel</Button>
      {disabled && (
        <span className="busy" role="status">
          Saving…
        </span>
      )}
    </div>
  );
}
