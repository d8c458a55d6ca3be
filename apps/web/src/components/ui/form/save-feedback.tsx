import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { ApiError, type FieldIssue } from '@/lib/api-client';
import { Alert } from '../alert';
import { Button } from '../button';
import { applyServerErrors } from './form';

export type SaveOutcome =
  | { kind: 'saved'; message: string; warnings: FieldIssue[] }
  | { kind: 'invalid'; message: string; issues: FieldIssue[] }
  | { kind: 'stale'; message: string }
  | { kind: 'failed'; message: string };

/**
 * What a refused save means to the operator: field errors go beside their fields (and are listed
 * once more at the top); a stale ETag (412) is a conflict with someone else's save, never an
 * overwrite; anything else is a plain message.
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
      message: `Someone else saved ${what} after you opened it. Your changes were not saved and nothing was overwritten. Reload to see their version, then make your change again.`,
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

export function SaveFeedback({
  outcome,
  onReload,
}: {
  outcome: SaveOutcome | null;
  onReload?: () => void;
}) {
  if (!outcome) return null;
  switch (outcome.kind) {
    case 'saved':
      return (
        <Alert tone="success" title={outcome.message}>
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
              <li key={`${i.path}:${i.message}`}>
                {i.path && <code>{i.path}</code>} {i.message}
              </li>
            ))}
          </ul>
        </Alert>
      );
    case 'stale':
      return (
        <Alert
          tone="error"
          title="Changed by someone else"
          actions={
            onReload && (
              <Button variant="primary" onClick={onReload}>
                Reload their version
              </Button>
            )
          }
        >
          {outcome.message}
        </Alert>
      );
    case 'failed':
      return <Alert tone="error" title={outcome.message} />;
  }
}
