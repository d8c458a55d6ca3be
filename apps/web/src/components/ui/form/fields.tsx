import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { describedBy, FieldRow, type FieldMessages } from './field-row';
import { MESSAGES } from '@ipfe/schema';

interface BaseFieldProps extends FieldMessages {
  label: ReactNode;
  registration: UseFormRegisterReturn;
  required?: boolean;
}

type InputFieldProps = BaseFieldProps &
  Omit<InputHTMLAttributes<HTMLInputElement>, keyof UseFormRegisterReturn | 'id'>;

/** A text or number box with its label, error, warning and input notes. */
export function InputField({
  label,
  registration,
  error,
  warning,
  help,
  required,
  className,
  ...props
}: InputFieldProps) {
  const id = useId();
  return (
    <FieldRow id={id} label={label} error={error} warning={warning} help={help} required={required}>
      <input
        id={id}
        className={`input ${className ?? ''}`}
        aria-invalid={error ? true : undefined}
        aria-required={required || undefined}
        aria-describedby={describedBy(id, { error, warning, help })}
        {...props}
        {...registration}
      />
    </FieldRow>
  );
}

export interface Choice {
  value: string;
  label: string;
  disabled?: boolean;
}

type SelectFieldProps = BaseFieldProps &
  Omit<SelectHTMLAttributes<HTMLSelectElement>, keyof UseFormRegisterReturn | 'id'> & {
    options: Choice[];
  };

/** A pull-down menu with its label, error and input notes. */
export function SelectField({
  label,
  registration,
  options,
  error,
  warning,
  help,
  required,
  ...props
}: SelectFieldProps) {
  const id = useId();
  return (
    <FieldRow id={id} label={label} error={error} warning={warning} help={help} required={required}>
      <select
        id={id}
        className="input"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, { error, warning, help })}
        {...props}
        {...registration}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value} disabled={o.disabled}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldRow>
  );
}

/** Radio buttons: the row's label names the group. `note` explains the disabled choices. */
export function RadioGroupField({
  label,
  registration,
  options,
  error,
  warning,
  help,
  required,
  disabled,
  note,
}: BaseFieldProps & { options: Choice[]; disabled?: boolean; note?: ReactNode }) {
  const id = useId();
  const noteId = `${id}-note`;
  return (
    <FieldRow
      id={id}
      label={label}
      labelFor={false}
      error={error}
      warning={warning}
      help={help}
      required={required}
    >
      <div
        role="radiogroup"
        className="radio-group"
        aria-labelledby={`${id}-label`}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, { error, warning, help })}
      >
        {options.map((o) => {
          const optionId = `${id}-${o.value}`;
          return (
            <span className="radio" key={o.value}>
              <input
                type="radio"
                id={optionId}
                value={o.value}
                disabled={disabled || o.disabled}
                aria-describedby={o.disabled && note ? noteId : undefined}
                {...registration}
              />
              <label htmlFor={optionId}>{o.label}</label>
            </span>
          );
        })}
      </div>
      {note && (
        <p className="field-note" id={noteId}>
          {note}
        </p>
      )}
    </FieldRow>
  );
}

/** A checkbox; the row's label is the checkbox's label. */
export function CheckboxField({
  label,
  registration,
  error,
  warning,
  help,
  text,
}: BaseFieldProps & { text?: string }) {
  const id = useId();
  return (
    <FieldRow id={id} label={label} error={error} warning={warning} help={help}>
      <span className="checkbox">
        <input
          type="checkbox"
          id={id}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, { error, warning, help })}
          {...registration}
        />
        {text && <span aria-hidden="true">{text}</span>}
      </span>
    </FieldRow>
  );
}

/** A value the system sets: shown in a read-only box, so that it reads and copies like the rest. */
export function ReadOnlyField({
  label,
  value,
  help,
  warning,
}: {
  label: ReactNode;
  value: string;
  help?: ReactNode;
  warning?: string;
}) {
  const id = useId();
  return (
    <FieldRow id={id} label={label} help={help} warning={warning}>
      <input
        id={id}
        className="input input-readonly"
        readOnly
        value={value}
        aria-describedby={describedBy(id, { help, warning })}
      />
    </FieldRow>
  );
}

/**
 * The name that keys an entity: typed on Insert, read-only on Edit ("This field cannot be
 * changed"), as the source GUI has it.
 */
export function NameField({
  existing,
  registration,
  error,
  help,
}: {
  /** The saved name on Edit; null on Insert. */
  existing: string | null;
  registration: UseFormRegisterReturn;
  error?: string;
  help: ReactNode;
}) {
  return existing !== null ? (
    <ReadOnlyField label="Name" value={existing} help={MESSAGES.readOnly} />
  ) : (
    <InputField
      label="Name"
      required
      autoComplete="off"
      registration={registration}
      error={error}
      help={help}
    />
  );
}
