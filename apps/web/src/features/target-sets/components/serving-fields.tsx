import {
  ACTIVE_ACTIVE_IPFES,
  defaultsOf,
  targetSetFieldsSchema,
  type IpfeSlot,
} from '@ipfe/schema';
import type { ReactNode } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { CheckboxGroupField, choiceLabel, RadioGroupField } from '@/components/ui/form';
import { slotChoices } from './ipfe-slots';

const SERVING_CHOICES = [
  { value: 'activeStandby', label: 'Active/Standby' },
  { value: 'activeActive', label: 'Active-Active' },
];
const { serving } = defaultsOf(targetSetFieldsSchema);
const { min, max } = ACTIVE_ACTIVE_IPFES;

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
        options={SERVING_CHOICES}
        help={`Active/Standby: the Active IPFE of each address serves it, its mate takes over. Active-Active: ${min}–${max} IPFEs serve it at once, each announcing it to the routers over BGP, which spread flows by ECMP; needs the Hash algorithm and BGP under Options. Default: ${choiceLabel(serving, SERVING_CHOICES)}`}
      />
      {activeActive && (
        <CheckboxGroupField
          label="Active-Active IPFEs"
          registration={register('activeActiveIpfes')}
          options={slotChoices(configured)}
          required
          note={slotNote}
          help={`The IPFEs that serve this Target Set together: ${min} to ${max}. Every one of them sends a flow to the same server.`}
        />
      )}
    </div>
  );
}
