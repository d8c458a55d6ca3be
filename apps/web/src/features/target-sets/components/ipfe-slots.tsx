import {
  IPFE_SLOTS,
  MESSAGES,
  slotLabel,
  standbyOf,
  type IpfeSlot,
  type Options,
} from '@ipfe/schema';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

/** Every IPFE as a choice: one not configured under Options is shown, but cannot be chosen. */
export const slotChoices = (configured: readonly IpfeSlot[]) =>
  IPFE_SLOTS.map((slot) => ({
    value: slot,
    label: slotLabel(slot),
    disabled: !configured.includes(slot),
  }));

/** Which IPFEs cannot be chosen, and where to configure them; undefined when every one can. */
export function unconfiguredNote(configured: readonly IpfeSlot[]): ReactNode {
  const unconfigured = IPFE_SLOTS.filter((s) => !configured.includes(s));
  if (unconfigured.length === 0) return undefined;
  return (
    <>
      {unconfigured.map(slotLabel).join(', ')}: not configured.{' '}
      <Link to="/options">{MESSAGES.configureIpfe}</Link>.
    </>
  );
}

/** The Preferred Standby of an address whose Active IPFE is `active` ('' = none chosen). */
export function standbyText(options: Options, active: IpfeSlot | '', activeActive: boolean) {
  if (activeActive) return 'None (served active-active)';
  if (!active) return 'None';
  const standby = standbyOf(options, active);
  return standby ? slotLabel(standby) : `None (the mate of ${slotLabel(active)} is not configured)`;
}
