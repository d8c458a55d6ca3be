import { useRef, useState } from 'react';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import type { Versioned } from '@/lib/api-client';
import { Button } from '../button';
import { outcomeOfError, type SaveOutcome } from './save-feedback';

export type SaveIntent = 'ok' | 'apply';

/**
 * The save of every form. An Insert/Edit page: OK saves and goes back, Apply saves and stays (its
 * route keeps the ETag). A single resource (Options, SNMP traps) is given the ETag it was read
 * with: each save sends the one of the version the form shows, and moves it on to the saved one.
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
  /** A single resource: the ETag of the version the form was opened with. */
  etag?: string | null;
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

export function FormActions({
  intent,
  busy,
  onCancel,
}: {
  intent: { current: SaveIntent };
  busy: boolean;
  onCancel: () => void;
}) {
  return (
    <div className="form-actions">
      <Button
        type="submit"
        variant="primary"
        disabled={busy}
        onClick={() => (intent.current = 'ok')}
      >
        OK
      </Button>
      <Button type="submit" disabled={busy} onClick={() => (intent.current = 'apply')}>
        Apply
      </Button>
      <Button onClick={onCancel}>Cancel</Button>
      {busy && (
        <span className="busy" role="status">
          Saving…
        </span>
      )}
    </div>
  );
}
