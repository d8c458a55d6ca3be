import { familyLabel, type IpfeSlot, type Options } from '@ipfe/schema';
import type { ReactNode } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import { InputField, RadioGroupField, ReadOnlyField } from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import type { Family, TargetSetFormValues } from './form-model';
import { slotChoices, standbyText } from './ipfe-slots';

const ACTIVE_ACTIVE_NOTE = 'Not used: the Target Set is served active-active (see Serving).';

/** What differs between the two sections: their words, and that the secondary is optional. */
const SECTIONS = {
  primary: {
    title: 'Primary Public IP Address',
    optional: false,
    address: 'Address',
    placeholder: (family: Family) => (family === 'ipv4' ? '192.0.2.10' : '2001:db8::10'),
    addressHelp: (family: Family) =>
      `Public ${familyLabel(family)} address presented to the outside world (the Target Set Address). Must be on an XSI network. Do not edit if in use by a local node.`,
    activeIpfe: 'Active IPFE',
    activeIpfeHelp:
      'The IPFE that primarily handles traffic for this address; if it fails, its mate takes over (A1↔A2, B1↔B2).',
    standby: 'Preferred Standby',
    standbyHelp: 'The mate of the Active IPFE, set when the Active IPFE is chosen.',
  },
  secondary: {
    title: 'Secondary Public IP Address',
    optional: true,
    address: 'Secondary Address',
    placeholder: () => undefined,
    addressHelp: () =>
      'Optional. For SCTP, a failover address of the association; for TCP, an independent address. When set, every IP List row needs a Secondary IP Address.',
    activeIpfe: 'Active IPFE for secondary address',
    activeIpfeHelp:
      'Should complement the Active IPFE, to give SCTP dual-homed traffic an alternative path.',
    standby: 'Preferred Standby for secondary address',
    standbyHelp: "The mate of the secondary address's Active IPFE.",
  },
} as const;

/**
 * A public address of the Target Set (primary or secondary) with its Active IPFE and that IPFE's
 * mate, the Preferred Standby. The secondary is optional: its IPFE is chosen once it has an
 * address. Active-active serving uses neither Active IPFE.
 */
export function AddressSection({
  which,
  family,
  options,
  configured,
  slotNote,
  activeActive,
  warningAt,
  liveError,
}: {
  which: keyof typeof SECTIONS;
  family: Family;
  options: Options;
  configured: readonly IpfeSlot[];
  /** Which IPFEs are not configured (see `unconfiguredNote`). */
  slotNote: ReactNode;
  activeActive: boolean;
  /** The warning the form holds for a field, if any. */
  warningAt: (path: string) => string | undefined;
  /** A live check's finding on the address (see `InputField`). */
  liveError?: string | null;
}) {
  const words = SECTIONS[which];
  const { control, register } = useFormContext<TargetSetFormValues>();
  const { address, activeIpfe } = useWatch({ control, name: which }) ?? {};
  const hasAddress = !words.optional || (address ?? '').trim() !== '';
  return (
    <Section title={words.title}>
      <div className="form-grid">
        <InputField
          label={words.address}
          required={!words.optional}
          autoComplete="off"
          placeholder={words.placeholder(family)}
          registration={register(`${which}.address`)}
          warning={warningAt(`${which}.address`)}
          liveError={liveError}
          help={words.addressHelp(family)}
        />
        <RadioGroupField
          label={words.activeIpfe}
          registration={register(`${which}.activeIpfe`)}
          options={slotChoices(configured)}
          disabled={!hasAddress || activeActive}
          note={
            activeActive
              ? ACTIVE_ACTIVE_NOTE
              : hasAddress
                ? slotNote
                : 'Set a Secondary Address first.'
          }
          warning={warningAt(`${which}.activeIpfe`)}
          help={words.activeIpfeHelp}
        />
        <ReadOnlyField
          label={words.standby}
          value={hasAddress ? standbyText(options, activeIpfe ?? '', activeActive) : 'None'}
          help={words.standbyHelp}
        />
      </div>
    </Section>
  );
}
