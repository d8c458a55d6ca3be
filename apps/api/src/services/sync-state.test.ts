import { describe, expect, it } from 'vitest';
import type { SyncRecord } from '../repositories/agent-sync-repository.ts';
import {
  CONTACT_SAVE_INTERVAL_MS,
  initialSync,
  nextSync,
  UNREACHABLE_AFTER_FAILED_POLLS,
  type SyncEvent,
  type SyncSlot,
  type SyncStep,
} from './sync-state.ts';

const BACKOFF = { minMs: 500, maxMs: 30_000 };
const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const AT = '2026-01-01T00:00:00.000Z';
const RECORD: SyncRecord = {
  slot: 'A1',
  desiredRevision: 4,
  appliedRevision: 3,
  appliedSha256: 'sha-3',
  rejectedRevision: null,
  rejectedError: null,
  lastError: null,
  lastContact: null,
  state: 'pending',
};

/** A configured slot owed revision 4, changed by `change` (record fields and slot fields). */
function slot(change: Partial<SyncRecord> & Partial<Omit<SyncSlot, 'record'>> = {}): SyncSlot {
  const {
    configured,
    inFlight,
    armed,
    backoffMs,
    failedPolls,
    boot,
    contactSavedAt,
    everReached,
    alarmOwed,
    startGrace,
    ...record
  } = change;
  return {
    ...initialSync({ ...RECORD, ...record }, BACKOFF),
    configured: true,
    boot: 'boot-1',
    contactSavedAt: NOW,
    // Most rows are about an agent known since the OAM started; the start grace rows say otherwise.
    everReached: true,
    ...definedOnly({
      configured,
      inFlight,
      armed,
      backoffMs,
      failedPolls,
      boot,
      contactSavedAt,
      everReached,
      alarmOwed,
      startGrace,
    }),
  };
}

const definedOnly = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

const status = (change: Partial<Extract<SyncEvent, { kind: 'status' }>> = {}): SyncEvent => ({
  kind: 'status',
  revision: 3,
  sha256: 'sha-3',
  boot: 'boot-1',
  desiredSha256: null,
  ...change,
});

interface Row {
  name: string;
  given: SyncSlot;
  event: SyncEvent;
  /** What the step must be; fields not named are as before (slot) or quiet (send, save, …). */
  then: {
    record?: Partial<SyncRecord>;
    slot?: Partial<Omit<SyncSlot, 'record'>>;
    push?: SyncStep['push'];
    send?: number;
    save?: boolean;
    unreachable?: string;
    note?: string;
  };
}

const NOW_PUSH = { kind: 'now' } as const;
const WITHIN_GRACE = { startedAt: NOW - 1_000, graceMs: 15_000 };
const GRACE_OVER = { startedAt: NOW - 15_000, graceMs: 15_000 };

const rows: Row[] = [
  // commit
  {
    name: 'a commit makes the new revision owed and pushes it at once, from the shortest backoff',
    given: slot({ desiredRevision: 3, appliedRevision: 3, state: 'synced', backoffMs: 8000 }),
    event: { kind: 'commit', latest: 4, configured: true },
    then: {
      record: { desiredRevision: 4, state: 'pending' },
      slot: { backoffMs: 500, armed: true },
      push: NOW_PUSH,
      save: true,
    },
  },
  {
    name: 'a commit clears a rejection and an unreachable state to pending',
    given: slot({ desiredRevision: 3, rejectedRevision: 3, state: 'rejected' }),
    event: { kind: 'commit', latest: 4, configured: true },
    then: {
      record: { desiredRevision: 4, state: 'pending' },
      slot: { armed: true },
      push: NOW_PUSH,
      save: true,
    },
  },
  {
    name: 'a commit back to the revision the agent runs is synced at once',
    given: slot({ desiredRevision: 4, appliedRevision: 3 }),
    event: { kind: 'commit', latest: 3, configured: true },
    then: {
      record: { desiredRevision: 3, state: 'synced' },
      slot: { armed: true },
      push: NOW_PUSH,
      save: true,
    },
  },
  {
    name: 'a commit that leaves the revision as it is (an agent added elsewhere) changes nothing',
    given: slot(),
    event: { kind: 'commit', latest: 4, configured: true },
    then: {},
  },
  {
    name: 'an agent removed from the configuration is pushed nothing',
    given: slot({ desiredRevision: 3 }),
    event: { kind: 'commit', latest: 4, configured: false },
    then: { slot: { configured: false } },
  },
  {
    name: 'a commit before any revision exists pushes nothing',
    given: slot({ desiredRevision: null, appliedRevision: null, configured: false }),
    event: { kind: 'commit', latest: null, configured: false },
    then: {},
  },
  // due
  {
    name: 'the push timer sends the owed revision',
    given: slot({ armed: true }),
    event: { kind: 'due', stored: true },
    then: { slot: { armed: false, inFlight: 4 }, send: 4 },
  },
  {
    name: 'the push timer sends nothing while a push is in flight',
    given: slot({ armed: true, inFlight: 3 }),
    event: { kind: 'due', stored: true },
    then: { slot: { armed: false } },
  },
  {
    name: 'the push timer sends nothing to an agent that runs the revision',
    given: slot({ armed: true, appliedRevision: 4, state: 'synced' }),
    event: { kind: 'due', stored: true },
    then: { slot: { armed: false } },
  },
  {
    name: 'the push timer sends nothing to an agent that rejected the revision',
    given: slot({ armed: true, rejectedRevision: 4, state: 'rejected' }),
    event: { kind: 'due', stored: true },
    then: { slot: { armed: false } },
  },
  {
    name: 'the push timer sends nothing to a removed agent',
    given: slot({ armed: true, configured: false }),
    event: { kind: 'due', stored: true },
    then: { slot: { armed: false } },
  },
  {
    name: 'the push timer sends nothing when the revision is not stored',
    given: slot({ armed: true }),
    event: { kind: 'due', stored: false },
    then: { slot: { armed: false } },
  },
  // answers to a push
  {
    name: 'ACK: the agent applied the revision: synced, contact now, backoff reset',
    given: slot({ inFlight: 4, state: 'unreachable', lastError: 'ECONNREFUSED', backoffMs: 4000 }),
    event: { kind: 'applied', sha256: 'sha-4' },
    then: {
      record: {
        appliedRevision: 4,
        appliedSha256: 'sha-4',
        state: 'synced',
        lastError: null,
        lastContact: AT,
      },
      slot: { inFlight: null, backoffMs: 500 },
      save: true,
    },
  },
  {
    name: 'ACK of a revision older than one committed meanwhile: the newer is pushed at once',
    given: slot({ inFlight: 4, desiredRevision: 5 }),
    event: { kind: 'applied', sha256: 'sha-4' },
    then: {
      record: { appliedRevision: 4, appliedSha256: 'sha-4', state: 'synced', lastContact: AT },
      slot: { inFlight: null, armed: true },
      push: NOW_PUSH,
      save: true,
    },
  },
  {
    name: "NACK: the agent refused the revision: rejected with the agent's message, not retried",
    given: slot({ inFlight: 4 }),
    event: { kind: 'rejected', error: 'The agent refused the deployment token' },
    then: {
      record: {
        rejectedRevision: 4,
        rejectedError: 'The agent refused the deployment token',
        state: 'rejected',
        lastError: 'The agent refused the deployment token',
        lastContact: AT,
      },
      slot: { inFlight: null },
      save: true,
    },
  },
  {
    name: 'stale: the agent runs newer content: rejected like a NACK',
    given: slot({ inFlight: 4 }),
    event: { kind: 'stale', error: 'revision 4 is applied already with other content' },
    then: {
      record: {
        rejectedRevision: 4,
        rejectedError: 'revision 4 is applied already with other content',
        state: 'rejected',
        lastError: 'revision 4 is applied already with other content',
        lastContact: AT,
      },
      slot: { inFlight: null },
      save: true,
    },
  },
  {
    name: 'timeout: unreachable, retried after the backoff with jitter (half of it at least)',
    given: slot({ inFlight: 4, backoffMs: 1000 }),
    event: { kind: 'timeout', jitter: 0 },
    then: {
      record: { state: 'unreachable', lastError: 'timed out' },
      slot: { inFlight: null, backoffMs: 2000, armed: true },
      push: { kind: 'after', ms: 500 },
      save: true,
    },
  },
  {
    name: 'failed: unreachable, retried after the backoff, which doubles up to its maximum',
    given: slot({ inFlight: 4, backoffMs: 20_000 }),
    event: { kind: 'failed', error: 'ECONNREFUSED', jitter: 1 },
    then: {
      record: { state: 'unreachable', lastError: 'ECONNREFUSED' },
      slot: { inFlight: null, backoffMs: 30_000, armed: true },
      push: { kind: 'after', ms: 20_000 },
      save: true,
    },
  },
  {
    name: 'failed while a newer revision was committed: the newer is pushed at once, not after the backoff',
    given: slot({ inFlight: 4, desiredRevision: 5, backoffMs: 1000 }),
    event: { kind: 'failed', error: 'HTTP 500', jitter: 0.5 },
    then: {
      record: { state: 'unreachable', lastError: 'HTTP 500' },
      slot: { inFlight: null, backoffMs: 2000, armed: true },
      push: NOW_PUSH,
      save: true,
    },
  },
  // status polls
  {
    name: 'an agent found running the desired revision is synced',
    given: slot({ state: 'unreachable', lastError: 'timed out', failedPolls: 2 }),
    event: status({ revision: 4, sha256: 'sha-4', desiredSha256: 'sha-4' }),
    then: {
      record: {
        appliedRevision: 4,
        appliedSha256: 'sha-4',
        state: 'synced',
        lastError: null,
        lastContact: AT,
      },
      slot: { failedPolls: 0 },
      save: true,
    },
  },
  {
    name: 'a synced agent polled again: contact noted, not saved within 10 s of the last save',
    given: slot({ appliedRevision: 4, state: 'synced', contactSavedAt: NOW - 1 }),
    event: status({ revision: 4, sha256: 'sha-4', desiredSha256: 'sha-4' }),
    then: { record: { lastContact: AT } },
  },
  {
    name: 'a synced agent polled 10 s after the last save: contact saved',
    given: slot({
      appliedRevision: 4,
      state: 'synced',
      contactSavedAt: NOW - CONTACT_SAVE_INTERVAL_MS,
    }),
    event: status({ revision: 4, sha256: 'sha-4', desiredSha256: 'sha-4' }),
    then: { record: { lastContact: AT }, slot: { contactSavedAt: NOW }, save: true },
  },
  {
    name: 'an agent running the desired number with other content is pushed it',
    given: slot(),
    event: status({ revision: 4, sha256: 'other', desiredSha256: 'sha-4' }),
    then: { record: { lastContact: AT }, slot: { armed: true }, push: NOW_PUSH },
  },
  {
    name: 'restart with a new boot id: a rejected revision is pushed once more',
    given: slot({ rejectedRevision: 4, rejectedError: 'refused', state: 'rejected' }),
    event: status({ boot: 'boot-2' }),
    then: {
      record: { rejectedRevision: null, rejectedError: null, state: 'pending', lastContact: AT },
      slot: { boot: 'boot-2', armed: true },
      push: NOW_PUSH,
      save: true,
      note: 'agent restarted: pushing the rejected revision again',
    },
  },
  {
    name: 'the same boot id: a rejected revision is not pushed again',
    given: slot({ rejectedRevision: 4, state: 'rejected' }),
    event: status(),
    then: { record: { lastContact: AT } },
  },
  {
    name: 'the first boot id the OAM sees is no restart',
    given: slot({ rejectedRevision: 4, state: 'rejected', boot: null }),
    event: status({ boot: 'boot-1' }),
    then: { record: { lastContact: AT }, slot: { boot: 'boot-1' } },
  },
  {
    name: 'an agent back from unreachable with an older revision is pushed at once, backoff reset',
    given: slot({ state: 'unreachable', backoffMs: 16_000, armed: true }),
    event: status({ revision: 2, sha256: 'sha-2' }),
    then: {
      record: { appliedRevision: 2, state: 'pending', lastContact: AT },
      slot: { backoffMs: 500 },
      push: NOW_PUSH,
      save: true,
    },
  },
  {
    name: 'an agent that lost the revision it had applied (restart, empty state) is pushed at once',
    given: slot({ appliedRevision: 4, state: 'synced' }),
    event: status({ revision: null, sha256: null, boot: 'boot-2' }),
    then: {
      record: { appliedRevision: null, state: 'pending', lastContact: AT },
      slot: { boot: 'boot-2', armed: true },
      push: NOW_PUSH,
      save: true,
    },
  },
  {
    name: 'a pending agent whose push timer is armed is left to it',
    given: slot({ armed: true }),
    event: status(),
    then: { record: { lastContact: AT } },
  },
  {
    name: 'a pending agent is not pushed again while its push is in flight',
    given: slot({ inFlight: 4, state: 'unreachable' }),
    event: status(),
    then: { record: { lastContact: AT } },
  },
  {
    name: 'before any revision an answer only notes the contact',
    given: slot({ desiredRevision: null, appliedRevision: null, failedPolls: 1, boot: null }),
    event: status({ revision: null, sha256: null }),
    then: { record: { lastContact: AT }, slot: { failedPolls: 0 } },
  },
  {
    name: 'a failed poll is counted, nothing more, below the limit',
    given: slot({ failedPolls: UNREACHABLE_AFTER_FAILED_POLLS - 2 }),
    event: { kind: 'silent', error: 'ECONNREFUSED' },
    then: { slot: { failedPolls: UNREACHABLE_AFTER_FAILED_POLLS - 1 } },
  },
  {
    name: 'the third failed poll in a row makes the agent unreachable and raises the alarm',
    given: slot({ appliedRevision: 4, state: 'synced', failedPolls: 2 }),
    event: { kind: 'silent', error: 'ECONNREFUSED' },
    then: {
      record: { state: 'unreachable', lastError: 'ECONNREFUSED' },
      slot: { failedPolls: 3 },
      save: true,
      unreachable: 'ECONNREFUSED',
    },
  },
  {
    name: 'a rejected agent that stops answering stays rejected, with the alarm raised',
    given: slot({ rejectedRevision: 4, state: 'rejected', failedPolls: 2 }),
    event: { kind: 'silent', error: 'timed out' },
    then: {
      record: { lastError: 'timed out' },
      slot: { failedPolls: 3 },
      save: true,
      unreachable: 'timed out',
    },
  },
  {
    name: 'further failed polls raise nothing again',
    given: slot({ state: 'unreachable', failedPolls: 3 }),
    event: { kind: 'silent', error: 'ECONNREFUSED' },
    then: { slot: { failedPolls: 4 } },
  },
  // the start grace: an agent not reached yet since the OAM started
  {
    name: 'not reached yet, within the start grace: the third failed poll makes it unreachable, the alarm waits',
    given: slot({ failedPolls: 2, everReached: false, startGrace: WITHIN_GRACE }),
    event: { kind: 'silent', error: 'ECONNREFUSED' },
    then: {
      record: { state: 'unreachable', lastError: 'ECONNREFUSED' },
      slot: { failedPolls: 3, alarmOwed: true },
      save: true,
      note: 'agent not reached since the OAM started: alarm after the start grace',
    },
  },
  {
    name: 'not reached yet, still within the start grace: a later failed poll raises nothing',
    given: slot({
      state: 'unreachable',
      failedPolls: 3,
      everReached: false,
      alarmOwed: true,
      startGrace: WITHIN_GRACE,
    }),
    event: { kind: 'silent', error: 'ECONNREFUSED' },
    then: { slot: { failedPolls: 4 } },
  },
  {
    name: 'not reached yet, the start grace over: the next failed poll raises the alarm, once',
    given: slot({
      state: 'unreachable',
      failedPolls: 7,
      everReached: false,
      alarmOwed: true,
      startGrace: GRACE_OVER,
    }),
    event: { kind: 'silent', error: 'ECONNREFUSED' },
    then: { slot: { failedPolls: 8, alarmOwed: false }, unreachable: 'ECONNREFUSED' },
  },
  {
    name: 'not reached yet, the start grace over by the third failed poll: the alarm at once',
    given: slot({ failedPolls: 2, everReached: false, startGrace: GRACE_OVER }),
    event: { kind: 'silent', error: 'ECONNREFUSED' },
    then: {
      record: { state: 'unreachable', lastError: 'ECONNREFUSED' },
      slot: { failedPolls: 3 },
      save: true,
      unreachable: 'ECONNREFUSED',
    },
  },
  {
    name: 'reached since the start, within the start grace: the third failed poll raises the alarm as before',
    given: slot({ appliedRevision: 4, state: 'synced', failedPolls: 2, startGrace: WITHIN_GRACE }),
    event: { kind: 'silent', error: 'ECONNREFUSED' },
    then: {
      record: { state: 'unreachable', lastError: 'ECONNREFUSED' },
      slot: { failedPolls: 3 },
      save: true,
      unreachable: 'ECONNREFUSED',
    },
  },
  {
    name: 'the first answer makes the agent reached: the waiting alarm is never raised',
    given: slot({
      desiredRevision: null,
      appliedRevision: null,
      boot: null,
      failedPolls: 4,
      everReached: false,
      alarmOwed: true,
      startGrace: WITHIN_GRACE,
    }),
    event: status({ revision: null, sha256: null }),
    then: {
      record: { lastContact: AT },
      slot: { failedPolls: 0, everReached: true, alarmOwed: false },
    },
  },
  {
    name: 'an answered push makes the agent reached too',
    given: slot({ inFlight: 4, everReached: false, startGrace: WITHIN_GRACE }),
    event: { kind: 'applied', sha256: 'sha-4' },
    then: {
      record: {
        appliedRevision: 4,
        appliedSha256: 'sha-4',
        state: 'synced',
        lastContact: AT,
      },
      slot: { inFlight: null, everReached: true },
      save: true,
    },
  },
  {
    // Else an agent reached by a push alone and killed before a poll got through is never alarmed:
    // its count of failed polls stays past the one that raises the alarm.
    name: 'an answered push starts the count of failed polls again',
    given: slot({
      inFlight: 4,
      failedPolls: 12,
      everReached: false,
      alarmOwed: true,
      startGrace: WITHIN_GRACE,
    }),
    event: { kind: 'applied', sha256: 'sha-4' },
    then: {
      record: { appliedRevision: 4, appliedSha256: 'sha-4', state: 'synced', lastContact: AT },
      slot: { inFlight: null, failedPolls: 0, everReached: true, alarmOwed: false },
      save: true,
    },
  },
];

/** Every kind of event, once: the compiler refuses this object when the union gains or loses one. */
const EVENT_KINDS = Object.keys({
  commit: true,
  due: true,
  applied: true,
  rejected: true,
  stale: true,
  timeout: true,
  failed: true,
  status: true,
  silent: true,
} satisfies Record<SyncEvent['kind'], true>);

describe('nextSync', () => {
  it('has rows for every kind of event', () => {
    expect([...new Set(rows.map((r) => r.event.kind))].sort()).toEqual([...EVENT_KINDS].sort());
  });

  it.each(rows)('$name', ({ given, event, then }) => {
    const step = nextSync(given, event, NOW, BACKOFF);
    expect(step).toEqual({
      slot: { ...given, ...then.slot, record: { ...given.record, ...then.record } },
      push: then.push ?? { kind: 'none' },
      send: then.send ?? null,
      save: then.save ?? false,
      unreachable: then.unreachable ?? null,
      note: then.note ?? null,
    });
  });

  it('leaves the state it is given as it was', () => {
    for (const { given, event } of rows) {
      const before = structuredClone(given);
      nextSync(given, event, NOW, BACKOFF);
      expect(given).toEqual(before);
    }
  });

  it('walks an agent that is down through retries to synced when it answers', () => {
    let s = initialSync({ ...RECORD, desiredRevision: null, appliedRevision: null }, BACKOFF);
    const run = (event: SyncEvent) => {
      const step = nextSync(s, event, NOW, BACKOFF);
      s = step.slot;
      return step;
    };
    expect(run({ kind: 'commit', latest: 1, configured: true }).push).toEqual({ kind: 'now' });
    expect(run({ kind: 'due', stored: true }).send).toBe(1);
    expect(run({ kind: 'failed', error: 'ECONNREFUSED', jitter: 1 }).push).toEqual({
      kind: 'after',
      ms: 500,
    });
    expect(run({ kind: 'due', stored: true }).send).toBe(1);
    expect(run({ kind: 'timeout', jitter: 1 }).push).toEqual({ kind: 'after', ms: 1000 });
    expect(s.record.state).toBe('unreachable');
    expect(run({ kind: 'due', stored: true }).send).toBe(1);
    run({ kind: 'applied', sha256: 'sha-1' });
    expect(s.record).toMatchObject({ state: 'synced', appliedRevision: 1, lastError: null });
    expect(s.backoffMs).toBe(BACKOFF.minMs);
    expect(s.armed).toBe(false);
  });
});
