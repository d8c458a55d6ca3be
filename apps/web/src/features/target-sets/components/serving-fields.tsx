import { IPFE_SLOTS, type IpfeSlot } from '@ipfe/schema';
import { useId, type ReactNode } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { describedBy, FieldRow, RadioGroupField, useFieldError } from '@/components/ui/form';

const slotLabel = (slot: IpfeSlot) => `IPFE-${slot}`;

/**
 * Checkboxes of the IPFE slots, one value each (react-hook-form gathers the ticked ones into a
 * list). The row's label names the group; `note` explains the disabled (unconfigured) slots.
 */
function SlotCheckboxes({
  label,
  registration,
  configured,
  note,
  help,
}: {
  label: string;
  registration: UseFormRegisterReturn;
  configured: readonly IpfeSlot[];
  note?: ReactNode;
  help?: ReactNode;
}) {
  const id = useId();
  const noteId = `${id}-note`;
  const error = useFieldError(registration.name);
  return (
    <FieldRow id={id} label={label} labelFor={false} error={error} help={help} required>
      <div
        role="group"
        className="radio-group"
        aria-labelledby={`${id}-label`}
        aria-describedby={describedBy(id, { error, help })}
      >
        {IPFE_SLOTS.map((slot) => {
          const optionId = `${id}-${slot}`;
          const disabled = !configured.includes(slot);
          return (
            <span className="radio" key={slot}>
              <input
                type="checkbox"
                id={optionId}
                value={slot}
                disabled={disabled}
                aria-invalid={error ? true : undefined}
                aria-describedby={disabled && note ? noteId : undefined}
                {...registration}
              />
              <label htmlFor={optionId}>{slotLabel(slot)}</label>
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

/**
 * Serving (decision 018): active/standby (the Active IPFE of each address and its mate) or
 * active-active (a group of IPFEs, each announcing the addresses over BGP).
 */
export function ServingFields({
  register,
  activeActive,
  configured,
  slotNote,
}: {
  register: (name: 'serving' | 'activeActiveIpfes') => UseFormRegisterReturn;
  activeActive: boolean;
  configured: readonly IpfeSlot[];
  slotNote?: ReactNode;
}) {
  return (
    <div className="form-grid">
      <RadioGroupField
        label="Serving"
        registration={register('serving')}
        options={[
          { value: 'activeStandby', label: 'Active/Standby' },
          { value: 'activeActive', label: 'Active-Active' },
        ]}
        help="Active/Standby: the Active IPFE of each address serves it, its mate takes over. Active-Active: 2–4 IPFEs serve it at once, each announcing it to the routers over BGP, which spread flows by ECMP; needs the Hash algorithm and BGP under Options. Default: Active/Standby"
      />
      {activeActive && (
        <SlotCheckboxes
          label="Active-Active IPFEs"
          registration={register('activeActiveIpfes')}
          configured={configured}
          note={slotNote}
          help="The IPFEs that serve this Target Set together: 2 to 4. Every one of them sends a flow to the same server."
        />
      )}
    </div>
  );
}
