import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { get, useFormState, type UseFormRegisterReturn } from 'react-hook-form';
import { describedBy, FieldRow } from './field-row';
import { messageOf } from './form';
import { MESSAGES } from '@ipfe/schema';

/**
 * The error the form (the `<Form>` around the field) holds for the field registered as `name`:
 * the first message of its subtree (a list typed in one box has one per item), worded by `word`
 * when given; else the own message of `alsoOf` (the list whose first item the field is).
 */
export function useFieldError(
  name: string,
  { alsoOf, word }: { alsoOf?: string; word?: (error: unknown) => string | undefined } = {},
): string | undefined {
  const { errors } = useFormState({ name: alsoOf ? [name, alsoOf] : name });
  const own: unknown = get(errors, name);
  const message = word ? word(own) : messageOf(own);
  if (message || !alsoOf) return message;
  const list = get(errors, alsoOf) as { message?: unknown } | undefined;
  return typeof list?.message === 'string' && list.message ? list.message : undefined;
}

interface BaseFieldProps {
  label: ReactNode;
  /** The field's registration: its error is the form's, at this name (see `useFieldError`). */
  registration: UseFormRegisterReturn;
  /** A warning: the save is allowed, the operator should know. */
  warning?: string | undefined;
  /** The source GUI's "Data Input Notes": format, range, default. */
  help?: ReactNode;
  required?: boolean;
  /** Another path whose own message shows here when the field has none (the list it heads). */
  errorAlsoOf?: string;
}

type InputFieldProps = BaseFieldProps &
  Omit<InputHTMLAttributes<HTMLInputElement>, keyof UseFormRegisterReturn | 'id'> & {
    /**
     * What a live check outside the form's validation finds (it follows other fields as they
     * change): shown as the error where the form holds none for this field.
     */
    liveError?: string | null | undefined;
  };

/** A text or number box with its label, error, warning and input notes. */
export function InputField({
  label,
  registration,
  warning,
  help,
  required,
  className,
  errorAlsoOf,
  liveError,
  ...props
}: InputFieldProps) {
  const id = useId();
  const error = useFieldError(registration.name, { alsoOf: errorAlsoOf }) ?? liveError ?? undefined;
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

type TextAreaFieldProps = BaseFieldProps & {
  rows?: number;
  /** Words the form's errors under the field's name (a message per line, say). */
  wordError?: (error: unknown) => string | undefined;
};

/** A text area with its label, error, warning and input notes. */
export function TextAreaField({
  label,
  registration,
  warning,
  help,
  required,
  rows,
  wordError,
}: TextAreaFieldProps) {
  const id = useId();
  const error = useFieldError(registration.name, { word: wordError });
  return (
    <FieldRow id={id} label={label} error={error} warning={warning} help={help} required={required}>
      <textarea
        id={id}
        className="input"
        rows={rows}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, { error, warning, help })}
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

/** How a field's help names a value: the label of its choice ("Both TCP and SCTP"), or on/off. */
export function choiceLabel(value: string | boolean, choices: readonly Choice[] = []): string {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return choices.find((c) => c.value === value)?.label ?? value;
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
  warning,
  help,
  required,
  errorAlsoOf,
  ...props
}: SelectFieldProps) {
  const id = useId();
  const error = useFieldError(registration.name, { alsoOf: errorAlsoOf });
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

/**
 * Radio buttons: the row's label names the group. `note` explains the disabled choices. A group
 * that is disabled as a whole shows no error: an error never sits on what cannot be corrected.
 */
export function RadioGroupField(
  props: BaseFieldProps & { options: Choice[]; disabled?: boolean; note?: ReactNode },
) {
  return <ChoiceGroup type="radio" {...props} />;
}

/**
 * Checkboxes, one value each (react-hook-form gathers the ticked ones into a list): the row's
 * label names the group; `note` explains the disabled choices.
 */
export function CheckboxGroupField(
  props: BaseFieldProps & { options: Choice[]; note?: ReactNode },
) {
  return <ChoiceGroup type="checkbox" {...props} />;
}

/** A group of radio buttons or checkboxes, each with its label, under the row's label. */
function ChoiceGroup({
  type,
  label,
  registration,
  options,
  warning,
  help,
  required,
  disabled,
  note,
  errorAlsoOf,
}: BaseFieldProps & {
  type: 'radio' | 'checkbox';
  options: Choice[];
  disabled?: boolean;
  note?: ReactNode;
}) {
  const id = useId();
  const noteId = `${id}-note`;
  const formError = useFieldError(registration.name, { alsoOf: errorAlsoOf });
  const error = disabled ? undefined : formError;
  const invalid = error ? true : undefined;
  // A radio group is one widget and says it is invalid; a checkbox group is a group of widgets,
  // each of which says it.
  const radio = type === 'radio';
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
        role={radio ? 'radiogroup' : 'group'}
        className="radio-group"
        aria-labelledby={`${id}-label`}
        aria-invalid={radio ? invalid : undefined}
        aria-describedby={describedBy(id, { error, warning, help })}
      >
        {options.map((o) => {
          const optionId = `${id}-${o.value}`;
          return (
            <span className="radio" key={o.value}>
              <input
                type={type}
                id={optionId}
                value={o.value}
                disabled={disabled || o.disabled}
                aria-invalid={radio ? undefined : invalid}
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
  warning,
  help,
  text,
}: BaseFieldProps & { text?: string }) {
  const id = useId();
  const error = useFieldError(registration.name);
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
  help,
}: {
  /** The saved name on Edit; null on Insert. */
  existing: string | null;
  registration: UseFormRegisterReturn;
  help: ReactNode;
}) {
  return existing !== null ? (
    <ReadOnlyField label="Name" value={existing} help={MESSAGES.readOnly} />
  ) : (
    <InputField label="Name" required autoComplete="off" registration={registration} help={help} />
  );
}
