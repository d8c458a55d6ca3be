import type { UnservedTsa } from '@ipfe/schema';
import type { IpfeSlotView } from '../api/get-ipfe';

export type Tone = 'ok' | 'warn' | 'error' | 'off';

export interface SyncSummary {
  tone: Tone;
  /** "synced · r12", "pending · r12", "rejected · r12", "unreachable", "not configured". */
  label: string;
  /** The agent's message, the last error, what it runs meanwhile. */
  detail: string | null;
}

const runs = (slot: IpfeSlotView) =>
  slot.appliedRevision === null
    ? 'runs no configuration from this OAM'
    : `runs r${slot.appliedRevision}`;

/** One IPFE's push state in the words of the Status page. */
export function syncOf(slot: IpfeSlotView): SyncSummary {
  switch (slot.state) {
    case 'synced':
      return { tone: 'ok', label: `synced · r${slot.appliedRevision ?? '?'}`, detail: null };
    case 'pending':
      return {
        tone: 'warn',
        label: `pending · r${slot.desiredRevision ?? '?'}`,
        detail: `${runs(slot)}${slot.lastError ? `; last try: ${slot.lastError}` : ''}`,
      };
    case 'rejected':
      return {
        tone: 'error',
        label: `rejected · r${slot.rejected?.revision ?? slot.desiredRevision ?? '?'}`,
        detail: `${slot.rejected?.error ?? slot.lastError ?? 'no reason given'} (${runs(slot)})`,
      };
    case 'unreachable':
      return {
        tone: 'error',
        label: 'unreachable',
        detail: `${slot.lastError ?? 'no answer'}; retrying r${slot.desiredRevision ?? '?'} (${runs(slot)})`,
      };
    case 'not configured':
      return { tone: 'off', label: 'not configured', detail: null };
  }
}

export interface FleetSummary {
  tone: Tone;
  configured: number;
  synced: number;
  /** The first IPFE with a problem, worst first: rejected, unreachable, pending. */
  cause: IpfeSlotView | null;
}

const RANK = { rejected: 0, unreachable: 1, pending: 2 } as const;

/** All configured IPFEs together: how many run the latest revision, and what is wrong. */
export function fleetOf(slots: IpfeSlotView[]): FleetSummary {
  const configured = slots.filter((s) => s.configured);
  const synced = configured.filter((s) => s.state === 'synced').length;
  const problems = configured
    .filter((s) => s.state in RANK)
    .sort((a, b) => RANK[a.state as keyof typeof RANK] - RANK[b.state as keyof typeof RANK]);
  const cause = problems[0] ?? null;
  const tone: Tone =
    configured.length === 0 ? 'off' : !cause ? 'ok' : cause.state === 'pending' ? 'warn' : 'error';
  return { tone, configured: configured.length, synced, cause };
}

/** The IPFE serving `tsa` now, by what the agents report (the active role wins a tie). */
export function ownerOf(slots: IpfeSlotView[], tsa: string): IpfeSlotView['slot'] | null {
  let standby: IpfeSlotView['slot'] | null = null;
  for (const slot of slots) {
    const owned = slot.owned.find((o) => o.tsa === tsa);
    if (owned?.role === 'active') return slot.slot;
    if (owned) standby = slot.slot;
  }
  return standby;
}

/**
 * "Target Set 2 not served", "Target Sets 2 and 5 not served": applied is not served, and the
 * header and the push strip say which Target Sets nobody serves now. Null when all are served.
 */
export function unservedWords(unserved: UnservedTsa[]): string | null {
  const numbers = [...new Set(unserved.map((u) => u.targetSet))];
  if (numbers.length === 0) return null;
  if (numbers.length === 1) return `Target Set ${numbers[0]} not served`;
  const list = `${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
  return `Target Sets ${list} not served`;
}

/** Each unserved TSA with its reason, as the agents report it: "10.0.0.1: …; 10.0.0.2: …". */
export const unservedReasons = (unserved: UnservedTsa[]): string =>
  unserved.map((u) => `${u.tsa}: ${u.reason}`).join('; ');
