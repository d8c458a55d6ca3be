import type { SyncRecord } from '../repositories/agent-sync-repository.ts';
import { unreachableAlarmDue } from './unreachable-alarm.ts';

/**
 * What the OAM decides about pushing to one agent (SPEC §4.1, §5), as a pure transition:
 * `nextSync(slot, event, now, backoff)` returns the next state and what to do — arm the push
 * timer, send a revision, save the record, raise the unreachable alarm. No clock, no timers, no
 * I/O: `AgentSync` feeds it the events (commits, timer firings, push answers, polls) with their time
 * and carries out what it returns.
 */

export interface SyncSlot {
  /** What survives an OAM restart (agent_sync). */
  readonly record: SyncRecord;
  /** The running configuration gives this slot an agent address. */
  readonly configured: boolean;
  /** The revision of the push awaiting its answer. */
  readonly inFlight: number | null;
  /** A push timer is armed (it will fire as a `due` event). */
  readonly armed: boolean;
  /** The next retry's delay before jitter: doubles from min to max on each failed push. */
  readonly backoffMs: number;
  /** Status polls failed in a row. */
  readonly failedPolls: number;
  /** The agent process last seen (its boot id): a new one is a restart. */
  readonly boot: string | null;
  /** When `lastContact` was last written for a poll alone (ms). */
  readonly contactSavedAt: number;
  /** The agent answered (a poll or a push) since the OAM started. */
  readonly everReached: boolean;
  /** Unreachable, not reached yet since the start: the alarm waits for the start grace. */
  readonly alarmOwed: boolean;
  readonly startGrace: StartGrace;
}

/** When the OAM started (ms), and how long an agent not reached yet may stay silent unalarmed. */
export interface StartGrace {
  readonly startedAt: number;
  readonly graceMs: number;
}

export interface Backoff {
  readonly minMs: number;
  readonly maxMs: number;
}

export type SyncEvent =
  /** A revision was committed (or the agents' addresses changed). `latest` is null before any. */
  | { readonly kind: 'commit'; readonly latest: number | null; readonly configured: boolean }
  /** The push timer fired; `stored`: the desired revision's document is in the store. */
  | { readonly kind: 'due'; readonly stored: boolean }
  /** The agent applied the pushed revision (200). */
  | { readonly kind: 'applied'; readonly sha256: string }
  /** The agent refused it: an invalid document (422) or the deployment token (401). */
  | { readonly kind: 'rejected'; readonly error: string }
  /** The agent runs a newer revision, or this number with other content (409). */
  | { readonly kind: 'stale'; readonly error: string }
  /** No answer within the request timeout. `jitter` is a draw in [0, 1). */
  | { readonly kind: 'timeout'; readonly jitter: number }
  /** Any other answer, or none (refused connection, reset). */
  | { readonly kind: 'failed'; readonly error: string; readonly jitter: number }
  /**
   * A status poll answered: the revision and digest the agent runs (null before its first) and its
   * boot id, and the digest of the desired revision's document when that is the revision the agent
   * reports (else null).
   */
  | {
      readonly kind: 'status';
      readonly revision: number | null;
      readonly sha256: string | null;
      readonly boot: string;
      readonly desiredSha256: string | null;
    }
  /** A status poll got no valid answer. */
  | { readonly kind: 'silent'; readonly error: string };

/** `none` leaves an armed timer as it is; `now` and `after` (re)arm it. */
export type Push =
  | { readonly kind: 'now' }
  | { readonly kind: 'after'; readonly ms: number }
  | { readonly kind: 'none' };

export interface SyncStep {
  readonly slot: SyncSlot;
  readonly push: Push;
  /** Send this revision now (only on `due`). */
  readonly send: number | null;
  /** The record changed: write it to the repository. */
  readonly save: boolean;
  /** Raise the OAM's own unreachable alarm with this cause. */
  readonly unreachable: string | null;
  /** Something worth a log line. */
  readonly note: string | null;
}

/** Status polls that fail in a row before the agent counts as unreachable. */
export const UNREACHABLE_AFTER_FAILED_POLLS = 3;
/** A poll a second need not be an fsync a second: lastContact alone is saved at most this often. */
export const CONTACT_SAVE_INTERVAL_MS = 10_000;

export function initialSync(
  record: SyncRecord,
  backoff: Backoff,
  startGrace: StartGrace = { startedAt: 0, graceMs: 0 },
): SyncSlot {
  return {
    record,
    configured: false,
    inFlight: null,
    armed: false,
    backoffMs: backoff.minMs,
    failedPolls: 0,
    boot: null,
    contactSavedAt: 0,
    everReached: false,
    alarmOwed: false,
    startGrace,
  };
}

/** The events that are an answer from the agent. */
const ANSWERS = new Set<SyncEvent['kind']>(['status', 'applied', 'rejected', 'stale']);

const NOW: Push = { kind: 'now' };
const NONE: Push = { kind: 'none' };

export function nextSync(
  slot: SyncSlot,
  event: SyncEvent,
  now: number,
  backoff: Backoff,
): SyncStep {
  const step = decide(slot, event, now, backoff);
  const armed = step.push.kind === 'none' ? step.slot.armed : true;
  const reached = ANSWERS.has(event.kind);
  // An answer (to a poll or a push) is contact: the agent is reached, and its failed polls count
  // from none again.
  const unchanged =
    armed === step.slot.armed &&
    (!reached || (step.slot.everReached && !step.slot.alarmOwed && step.slot.failedPolls === 0));
  return {
    send: null,
    save: false,
    unreachable: null,
    note: null,
    ...step,
    slot: unchanged
      ? step.slot
      : {
          ...step.slot,
          armed,
          ...(reached && { everReached: true, alarmOwed: false, failedPolls: 0 }),
        },
  };
}

type Decision = Partial<SyncStep> & Pick<SyncStep, 'slot' | 'push'>;

function decide(slot: SyncSlot, event: SyncEvent, now: number, backoff: Backoff): Decision {
  const r = slot.record;
  switch (event.kind) {
    case 'commit': {
      const { latest, configured } = event;
      const next = { ...slot, configured };
      if (!configured || latest === null || r.desiredRevision === latest) {
        return { slot: next, push: NONE };
      }
      const state = r.appliedRevision === latest ? 'synced' : 'pending';
      return {
        slot: {
          ...next,
          record: { ...r, desiredRevision: latest, state },
          backoffMs: backoff.minMs,
        },
        push: NOW,
        save: true,
      };
    }
    case 'due': {
      const ready = { ...slot, armed: false };
      const desired = r.desiredRevision;
      const owed =
        slot.configured &&
        slot.inFlight === null &&
        desired !== null &&
        r.appliedRevision !== desired &&
        r.rejectedRevision !== desired &&
        event.stored;
      if (!owed) return { slot: ready, push: NONE };
      return { slot: { ...ready, inFlight: desired }, push: NONE, send: desired };
    }
    case 'applied':
      return answered(slot, {
        record: {
          ...r,
          appliedRevision: slot.inFlight,
          appliedSha256: event.sha256,
          state: 'synced',
          lastError: null,
          lastContact: iso(now),
        },
        backoffMs: backoff.minMs,
      });
    case 'rejected':
    case 'stale':
      return answered(slot, {
        record: {
          ...r,
          rejectedRevision: slot.inFlight,
          rejectedError: event.error,
          state: 'rejected',
          lastError: event.error,
          lastContact: iso(now),
        },
      });
    case 'timeout':
    case 'failed': {
      const error = event.kind === 'timeout' ? 'timed out' : event.error;
      const retry: Push = { kind: 'after', ms: slot.backoffMs * (0.5 + event.jitter / 2) };
      return answered(
        slot,
        {
          record: { ...r, state: 'unreachable', lastError: error },
          backoffMs: Math.min(backoff.maxMs, slot.backoffMs * 2),
        },
        retry,
      );
    }
    case 'status':
      return polled(slot, event, now, backoff);
    case 'silent': {
      const failedPolls = slot.failedPolls + 1;
      const { startedAt, graceMs } = slot.startGrace;
      const due = unreachableAlarmDue({ everReached: slot.everReached, startedAt, now, graceMs });
      if (failedPolls > UNREACHABLE_AFTER_FAILED_POLLS && slot.alarmOwed && due) {
        return {
          slot: { ...slot, failedPolls, alarmOwed: false },
          push: NONE,
          unreachable: event.error,
        };
      }
      if (failedPolls !== UNREACHABLE_AFTER_FAILED_POLLS) {
        return { slot: { ...slot, failedPolls }, push: NONE };
      }
      const state = r.state === 'rejected' ? 'rejected' : 'unreachable';
      return {
        slot: {
          ...slot,
          failedPolls,
          alarmOwed: !due,
          record: { ...r, state, lastError: event.error },
        },
        push: NONE,
        save: true,
        unreachable: due ? event.error : null,
        note: due ? null : 'agent not reached since the OAM started: alarm after the start grace',
      };
    }
  }
}

/**
 * The answer to the push of `slot.inFlight`. Whatever it was, a revision committed meanwhile is
 * pushed at once (ahead of any backoff).
 */
function answered(slot: SyncSlot, change: Partial<SyncSlot>, push: Push = NONE): Decision {
  const next = { ...slot, ...change, inFlight: null };
  const newer = next.record.desiredRevision !== slot.inFlight;
  return { slot: next, push: newer ? NOW : push, save: true };
}

/** What the agent runs tells whether a push is owed: an agent that restarted or came back gets one. */
function polled(
  slot: SyncSlot,
  event: Extract<SyncEvent, { kind: 'status' }>,
  now: number,
  backoff: Backoff,
): Decision {
  const contacted = { ...slot, failedPolls: 0, record: { ...slot.record, lastContact: iso(now) } };
  const desired = slot.record.desiredRevision;
  if (desired === null) return { slot: contacted, push: NONE };
  // A restarted agent (new token, new version) gets the rejected revision once more.
  const restarted =
    slot.boot !== null && slot.boot !== event.boot && slot.record.rejectedRevision === desired;
  const retried: SyncRecord = restarted
    ? { ...contacted.record, rejectedRevision: null, rejectedError: null, state: 'pending' }
    : contacted.record;
  const { record, push, freshBackoff } = reconcile(slot, retried, event, desired);
  const contactDue = now - slot.contactSavedAt >= CONTACT_SAVE_INTERVAL_MS;
  return {
    slot: {
      ...contacted,
      record,
      boot: event.boot,
      backoffMs: freshBackoff ? backoff.minMs : slot.backoffMs,
      contactSavedAt: contactDue ? now : slot.contactSavedAt,
    },
    push,
    save: record !== contacted.record || contactDue,
    note: restarted ? 'agent restarted: pushing the rejected revision again' : null,
  };
}

/** The agent runs the desired revision (synced), or something else (a push is owed), or is left be. */
function reconcile(
  slot: SyncSlot,
  record: SyncRecord,
  event: Extract<SyncEvent, { kind: 'status' }>,
  desired: number,
): { record: SyncRecord; push: Push; freshBackoff: boolean } {
  const runsDesired =
    event.revision === desired &&
    event.desiredSha256 !== null &&
    event.sha256 === event.desiredSha256;
  if (runsDesired) {
    if (record.state === 'synced' && record.appliedRevision === desired) {
      return { record, push: NONE, freshBackoff: false };
    }
    const synced = { appliedRevision: desired, appliedSha256: event.sha256, lastError: null };
    return { record: { ...record, ...synced, state: 'synced' }, push: NONE, freshBackoff: false };
  }
  if (record.rejectedRevision === desired || slot.inFlight !== null) {
    return { record, push: NONE, freshBackoff: false };
  }
  // The agent runs something else: it came back after being unreachable, or lost what it had.
  if (record.state === 'unreachable' || record.appliedRevision === desired) {
    const pending: SyncRecord = { ...record, appliedRevision: event.revision, state: 'pending' };
    return { record: pending, push: NOW, freshBackoff: true };
  }
  return { record, push: slot.armed ? NONE : NOW, freshBackoff: false };
}

const iso = (now: number) => new Date(now).toISOString();
