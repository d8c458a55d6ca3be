import { useId, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '@/lib/api-client';
import { Alert } from './alert';
import { Button, ButtonLink } from './button';
import { ConfirmDialog } from './confirm-dialog';

/**
 * Insert / Edit / Delete over the selected row of a list. Delete asks first; a refused delete
 * (the item is still in use) says who uses it.
 */
export function ListToolbar({
  noun,
  selected,
  insert,
  insertRefusal = null,
  editPath,
  onDelete,
  extra,
}: {
  noun: string;
  /** The selected row's label ("XSI network xsi1"), or null. */
  selected: { key: string; label: string } | null;
  insert: { to: string; label: string }[];
  /** Why nothing can be inserted now ("All 32 Target Set numbers are in use"): Insert is disabled. */
  insertRefusal?: string | null;
  editPath: (key: string) => string;
  onDelete: (key: string) => Promise<unknown>;
  extra?: ReactNode;
}) {
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const refusalId = useId();

  const remove = async () => {
    if (!selected) return;
    setBusy(true);
    try {
      await onDelete(selected.key);
      setConfirming(false);
      setDone(`${selected.label.charAt(0).toUpperCase()}${selected.label.slice(1)} deleted.`);
    } catch (error) {
      setRefusal(
        error instanceof ApiError && error.code === 'IN_USE'
          ? `${error.message}. Remove it from there first.`
          : error instanceof Error
            ? error.message
            : String(error),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <div className="toolbar" role="toolbar" aria-label={`${noun} actions`}>
        {insert.map((i) =>
          insertRefusal ? (
            <Button key={i.to} variant="primary" disabled aria-describedby={refusalId}>
              {i.label}
            </Button>
          ) : (
            <ButtonLink key={i.to} to={i.to} variant="primary">
              {i.label}
            </ButtonLink>
          ),
        )}
        <Button
          disabled={!selected}
          onClick={() => selected && void navigate(editPath(selected.key))}
        >
          Edit
        </Button>
        <Button
          variant="danger"
          disabled={!selected}
          onClick={() => {
            setRefusal(null);
            setDone(null);
            setConfirming(true);
          }}
        >
          Delete
        </Button>
        {extra}
      </div>
      {insertRefusal && (
        <p id={refusalId} className="field-note toolbar-note">
          {insertRefusal}.
        </p>
      )}
      {done && <Alert tone="success" title={done} />}
      <ConfirmDialog
        open={confirming && selected !== null}
        title={`Delete ${selected?.label ?? ''}?`}
        confirmLabel="Delete"
        busy={busy}
        onConfirm={() => void remove()}
        onCancel={() => {
          setConfirming(false);
          setRefusal(null);
        }}
        error={refusal && <>The delete was refused: {refusal}</>}
      >
        <p>
          This commits a new configuration revision without {selected?.label}. It can be brought
          back by rolling back to an earlier revision.
        </p>
      </ConfirmDialog>
    </>
  );
}
