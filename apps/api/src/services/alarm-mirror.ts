import { ALARM, ALARM_CATALOG, currentAlarm, type AgentAlarm, type IpfeSlot } from '@ipfe/schema';
import type {
  AgentSyncRepository,
  AlarmEvent,
  AlarmRecord,
  NewAlarm,
} from '../repositories/agent-sync-repository.ts';

export type { AlarmEvent };

/** The OAM's own alarm about an agent it cannot reach. */
export const UNREACHABLE_ALARM = {
  code: ALARM.ipfeUnreachable,
  name: ALARM_CATALOG[ALARM.ipfeUnreachable].name,
  severity: ALARM_CATALOG[ALARM.ipfeUnreachable].severity,
} as const;

/** What to write to the alarm log: alarms to clear (with when) and alarms to raise. */
interface AlarmChanges {
  clear: { id: number; clearedAt: string }[];
  raise: NewAlarm[];
}

type AlarmKey = Pick<AgentAlarm, 'code' | 'targetSet' | 'server' | 'raisedAt'>;
const keyOf = (a: AlarmKey) => `${a.code}|${a.targetSet ?? ''}|${a.server ?? ''}|${a.raisedAt}`;

/**
 * An agent answered: the slot's active alarms become those it reports. One it no longer reports
 * is cleared when the agent's history says (else now); the unreachable alarm clears, being
 * answered.
 */
function reportedChanges(
  slot: IpfeSlot,
  stored: readonly AlarmRecord[],
  report: { alarms: readonly AgentAlarm[]; alarmHistory: readonly AgentAlarm[] },
  now: string,
): AlarmChanges {
  const reported = new Set(report.alarms.map(keyOf));
  const storedKeys = new Set(stored.map(keyOf));
  const clear = stored.flatMap((alarm) => {
    if (alarm.code === UNREACHABLE_ALARM.code) return [{ id: alarm.id, clearedAt: now }];
    if (reported.has(keyOf(alarm))) return [];
    const history = report.alarmHistory.find((h) => keyOf(h) === keyOf(alarm));
    return [{ id: alarm.id, clearedAt: history?.clearedAt ?? now }];
  });
  const raise = report.alarms
    .filter((alarm) => !storedKeys.has(keyOf(alarm)))
    .map(({ code, name, severity, targetSet, server, text, raisedAt }) => ({
      slot,
      code,
      name,
      severity,
      targetSet,
      server,
      text,
      raisedAt,
    }));
  return { clear, raise };
}

/**
 * An agent stopped answering: what it reported can no longer be known, so its alarms clear, and
 * the unreachable alarm is raised once.
 */
function unreachableChanges(
  slot: IpfeSlot,
  stored: readonly AlarmRecord[],
  error: string,
  now: string,
): AlarmChanges {
  const clear = stored
    .filter((a) => a.code !== UNREACHABLE_ALARM.code)
    .map((a) => ({ id: a.id, clearedAt: now }));
  const raised = stored.some((a) => a.code === UNREACHABLE_ALARM.code);
  const raise = raised
    ? []
    : [
        {
          slot,
          ...UNREACHABLE_ALARM,
          targetSet: null,
          server: null,
          text: `IPFE ${slot} does not answer (${error})`,
          raisedAt: now,
        },
      ];
  return { clear, raise };
}

/** Mirrors what the agents report into the OAM's alarm log (SPEC §4.6). */
export class AlarmMirror {
  readonly #listeners: ((event: AlarmEvent) => void)[] = [];

  constructor(private readonly repository: AgentSyncRepository) {}

  /** Tells `listener` of each alarm raised or cleared, once it and its trap are in the log. */
  onAlarm(listener: (event: AlarmEvent) => void): void {
    this.#listeners.push(listener);
  }

  /** An agent not yet upgraded still numbers some alarms as before: read as they are now. */
  reported(
    slot: IpfeSlot,
    report: Parameters<typeof reportedChanges>[2],
    now: string,
  ): Promise<void> {
    const current = {
      alarms: report.alarms.map(currentAlarm),
      alarmHistory: report.alarmHistory.map(currentAlarm),
    };
    return this.#write((stored) => reportedChanges(slot, stored, current, now), slot);
  }

  unreachable(slot: IpfeSlot, error: string, now: string): Promise<void> {
    return this.#write((stored) => unreachableChanges(slot, stored, error, now), slot);
  }

  async #write(changes: (stored: AlarmRecord[]) => AlarmChanges, slot: IpfeSlot): Promise<void> {
    const events = await this.repository.transaction(async (repository) => {
      const stored = await repository.activeAlarms(slot);
      const { clear, raise } = changes(stored);
      const done: AlarmEvent[] = [];
      for (const c of clear) {
        await repository.clear(c.id, c.clearedAt);
        const alarm = stored.find((a) => a.id === c.id)!;
        done.push({ kind: 'cleared', alarm: { ...alarm, clearedAt: c.clearedAt } });
      }
      for (const alarm of raise) {
        const id = await repository.raise(alarm);
        done.push({ kind: 'raised', alarm: { ...alarm, id, clearedAt: null } });
      }
      // The traps go with the alarm log: both or neither, whoever sends them (decision 022).
      for (const event of done) await repository.queueTrap(event);
      return done;
    });
    // After the commit, and a listener's failure is its own: the alarm log is written either way.
    for (const event of events)
      for (const listener of this.#listeners) {
        try {
          listener(event);
        } catch {
          // Listeners log their own errors (SnmpTrapSender catches every one).
        }
      }
  }
}
