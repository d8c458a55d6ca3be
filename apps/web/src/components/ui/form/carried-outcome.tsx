import { createContext, useContext, type ReactNode } from 'react';
import type { FieldIssue } from '@/lib/api-client';

export type SaveOutcome =
  | { kind: 'saved'; message: string; warnings: FieldIssue[] }
  | { kind: 'invalid'; message: string; issues: FieldIssue[] }
  | { kind: 'stale'; message: string; what: string }
  | { kind: 'failed'; message: string };

/**
 * A message that the page which sent the operator here left for the form ("saved as revision 4"
 * after Apply on Insert): shown like the form's own outcome, until the next save. A module of its
 * own: the list pages of the first chunk carry it without the form kit.
 */
const CarriedOutcome = createContext<SaveOutcome | null>(null);

export function CarriedOutcomeProvider({
  outcome,
  children,
}: {
  outcome: SaveOutcome | null;
  children: ReactNode;
}) {
  return <CarriedOutcome.Provider value={outcome}>{children}</CarriedOutcome.Provider>;
}

/** The message the page that sent the operator here left for the form, if any. */
export const useCarriedOutcome = () => useContext(CarriedOutcome);
