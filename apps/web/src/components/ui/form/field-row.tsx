import type { ReactNode } from 'react';
import { withMenuLinks } from './menu-links';

export interface FieldMessages {
  /** The field's error, worded as the schema (or the server) words it. */
  error?: string | undefined;
  /** A warning: the save is allowed, the operator should know. */
  warning?: string | undefined;
  /** The source GUI's "Data Input Notes": format, range, default. */
  help?: ReactNode;
}

/** A field in error shows only the error: a warning about a value that cannot be saved is noise. */
const shownWarning = ({ error, warning }: FieldMessages) => (error ? undefined : warning);

export const describedBy = (id: string, { error, warning, help }: FieldMessages) =>
  [
    error && `${id}-error`,
    shownWarning({ error, warning }) && `${id}-warning`,
    help && `${id}-help`,
  ]
    .filter(Boolean)
    .join(' ') || undefined;

/**
 * One row of a form grid, as on the source pages: the field's name, its control with its error
 * and warning right under it, and the input notes.
 */
export function FieldRow({
  id,
  label,
  required,
  labelFor = true,
  error,
  warning,
  help,
  children,
}: FieldMessages & {
  id: string;
  label: ReactNode;
  required?: boolean;
  /** false for groups (radios), whose label names the group instead of one control. */
  labelFor?: boolean;
  children: ReactNode;
}) {
  // The required mark stays outside the label: the control's name is the field's name alone.
  const mark = required && (
    <span className="required" aria-hidden="true">
      *
    </span>
  );
  return (
    <div className="field-row">
      <div className="field-label">
        {mark}
        {labelFor ? <label htmlFor={id}>{label}</label> : <span id={`${id}-label`}>{label}</span>}
      </div>
      <div className="field-control">
        {children}
        <FieldMessage id={id} error={error} warning={warning} />
      </div>
      <div className="field-help" id={help ? `${id}-help` : undefined}>
        {help}
      </div>
    </div>
  );
}

export function FieldMessage({
  id,
  error,
  warning,
}: {
  id: string;
  error?: string | undefined;
  warning?: string | undefined;
}) {
  return (
    <>
      {error && (
        <p className="field-error" id={`${id}-error`}>
          <span aria-hidden="true">✖ </span>
          {withMenuLinks(error)}
        </p>
      )}
      {shownWarning({ error, warning }) && (
        <p className="field-warning" id={`${id}-warning`}>
          <span aria-hidden="true">⚠ </span>
          {withMenuLinks(warning!)}
        </p>
      )}
    </>
  );
}
