import { leastLoadSchema, type Options, type TargetSet } from '@ipfe/schema';
import { useEffect, useState } from 'react';

/**
 * Whether the Least Load section stays open under Hash. Hash does not use its fields, so they are
 * greyed out — unless one is out of range (Hash keeps them, range-checked): an error never sits on
 * a field that cannot be corrected. Once open under Hash, the section stays open until the
 * algorithm changes, so that it does not lock under the operator's typing.
 */
export const openUnderHash = (open: boolean, hash: boolean, invalid: boolean) =>
  hash && (open || invalid);

export interface LeastLoadSectionState {
  /** Greyed out: nothing in it can be changed. */
  locked: boolean;
  /** What the section's heading says beside its title. */
  note: string | undefined;
}

export function leastLoadSection({
  hash,
  open,
  invalid,
  monitorProtocol,
}: {
  hash: boolean;
  /** Open under Hash (see `openUnderHash`). */
  open: boolean;
  /** A field of the section is out of range. */
  invalid: boolean;
  monitorProtocol: Options['monitorProtocol'];
}): LeastLoadSectionState {
  const locked = hash && !open && !invalid;
  if (locked) return { locked, note: 'Not used by the Hash algorithm' };
  if (hash) {
    return {
      locked,
      note: 'Not used by the Hash algorithm, but kept as typed: correct the value marked below',
    };
  }
  return {
    locked,
    note:
      monitorProtocol !== 'heartbeat'
        ? `Least Load needs Application Server Monitoring set to Heartbeat; it is now ${monitorProtocol}.`
        : undefined,
  };
}

/** The Least Load section as the algorithm and the section's fields, as typed, leave it. */
export function useLeastLoadSection(
  algorithm: TargetSet['algorithm'],
  leastLoad: unknown,
  monitorProtocol: Options['monitorProtocol'],
): LeastLoadSectionState {
  const hash = algorithm === 'hash';
  const invalid = !leastLoadSchema.safeParse(leastLoad).success;
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen((was) => openUnderHash(was, hash, invalid)), [hash, invalid]);
  return leastLoadSection({ hash, open, invalid, monitorProtocol });
}
