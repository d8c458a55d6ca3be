import type { IpfeSlot } from '@ipfe/schema';
import type { ReactNode } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { CheckboxGroupField, RadioGroupField } from '@/components/ui/form';
import { slotChoices } from './ipfe-slots';

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
        <CheckboxGroupField
          label="Active-Active IPFEs"
          registration={register('activeActiveIpfes')}
          options={slotChoices(configured)}
          required
          note={slotNote}
          help="The IPFEs that serve this Target Set together: 2 to 4. Every one of them sends a flow to the same server."
        />
      )}
    </div>
  );
}
