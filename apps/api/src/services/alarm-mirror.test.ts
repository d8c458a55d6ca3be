import type { AgentAlarm } from '@ipfe/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../plugins/db.ts';
import { AgentSyncRepository } from '../repositories/agent-sync-repository.ts';
import { AlarmMirror, UNREACHABLE_ALARM } from './alarm-mirror.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:05.000Z';
const T2 = '2026-01-01T00:00:09.000Z';

const backendDown: AgentAlarm = {
  code: 5001,
  name: 'Backend Unavailable',
  severity: 'major',
  targetSet: 1,
  server: '127.0.1.2',
  text: 'Application server 127.0.1.2 is offline',
  raisedAt: T0,
  clearedAt: null,
};
const mateTimeout: AgentAlarm = {
  code: 5012,
  name: 'Mate Heartbeat Timeout',
  severity: 'major',
  targetSet: null,
  server: null,
  text: 'No beacon from IPFE A2 for 3000 ms',
  raisedAt: T0,
  clearedAt: null,
};

let db: ReturnType<typeof openDatabase>;
let repository: AgentSyncRepository;
let mirror: AlarmMirror;
beforeEach(() => {
  db = openDatabase(':memory:');
  repository = new AgentSyncRepository(db);
  mirror = new AlarmMirror(repository);
});
afterEach(() => db.close());

const active = (slot?: string) =>
  repository.activeAlarms(slot).map((a) => `${a.slot}:${a.code}:${a.server ?? '-'}`);
const cleared = () => repository.history(10).map((a) => `${a.slot}:${a.code}@${a.clearedAt}`);

describe('AlarmMirror', () => {
  it("keeps each slot's active alarms as its agent reports them", () => {
    mirror.reported('A1', { alarms: [backendDown, mateTimeout], alarmHistory: [] }, T0);
    mirror.reported('A2', { alarms: [backendDown], alarmHistory: [] }, T0);
    // Reported again: nothing is raised twice.
    mirror.reported('A1', { alarms: [backendDown, mateTimeout], alarmHistory: [] }, T1);
    expect(active()).toEqual(['A1:5001:127.0.1.2', 'A1:5012:-', 'A2:5001:127.0.1.2']);
    expect(cleared()).toEqual([]);
  });

  it("clears an alarm the agent no longer reports, at the time of the agent's history", () => {
    mirror.reported('A1', { alarms: [backendDown, mateTimeout], alarmHistory: [] }, T0);
    mirror.reported(
      'A1',
      { alarms: [mateTimeout], alarmHistory: [{ ...backendDown, clearedAt: T1 }] },
      T2,
    );
    expect(active()).toEqual(['A1:5012:-']);
    expect(cleared()).toEqual([`A1:5001@${T1}`]);
  });

  it('clears an alarm gone from the agent without a history entry now', () => {
    mirror.reported('A1', { alarms: [mateTimeout], alarmHistory: [] }, T0);
    mirror.reported('A1', { alarms: [], alarmHistory: [] }, T2);
    expect(active()).toEqual([]);
    expect(cleared()).toEqual([`A1:5012@${T2}`]);
  });

  it('tells a raise again (a new raisedAt) from the alarm still active', () => {
    mirror.reported('A1', { alarms: [mateTimeout], alarmHistory: [] }, T0);
    const again = { ...mateTimeout, raisedAt: T1 };
    mirror.reported(
      'A1',
      { alarms: [again], alarmHistory: [{ ...mateTimeout, clearedAt: T1 }] },
      T1,
    );
    expect(repository.activeAlarms('A1').map((a) => a.raisedAt)).toEqual([T1]);
    expect(cleared()).toEqual([`A1:5012@${T1}`]);
  });

  it("raises the unreachable alarm once for a silent agent and clears that agent's own alarms", () => {
    mirror.reported('A1', { alarms: [backendDown], alarmHistory: [] }, T0);
    mirror.reported('A2', { alarms: [mateTimeout], alarmHistory: [] }, T0);
    mirror.unreachable('A1', 'ECONNREFUSED', T1);
    mirror.unreachable('A1', 'ECONNREFUSED', T2);
    expect(active()).toEqual(['A2:5012:-', `A1:${UNREACHABLE_ALARM.code}:-`]);
    expect(repository.activeAlarms('A1')[0]).toMatchObject({
      ...UNREACHABLE_ALARM,
      text: 'IPFE A1 does not answer (ECONNREFUSED)',
      raisedAt: T1,
    });
    expect(cleared()).toEqual([`A1:5001@${T1}`]);
  });

  it('clears the unreachable alarm when the agent answers again', () => {
    mirror.unreachable('A1', 'timed out', T0);
    mirror.reported('A1', { alarms: [backendDown], alarmHistory: [] }, T2);
    expect(active('A1')).toEqual(['A1:5001:127.0.1.2']);
    expect(cleared()).toEqual([`A1:${UNREACHABLE_ALARM.code}@${T2}`]);
  });
  it('tells its listeners of each alarm raised and cleared once logged, and a throwing one breaks nothing', () => {
    const events: string[] = [];
    mirror.onAlarm(() => {
      throw new Error('a listener that fails');
    });
    mirror.onAlarm(({ kind, alarm }) =>
      events.push(`${kind} ${alarm.id} ${alarm.code} ${alarm.clearedAt ?? '-'}`),
    );
    mirror.reported('A1', { alarms: [backendDown], alarmHistory: [] }, T0);
    mirror.reported('A1', { alarms: [backendDown], alarmHistory: [] }, T1);
    mirror.unreachable('A1', 'ECONNREFUSED', T2);
    const [raised, unreachable] = [repository.history(1)[0]!, repository.activeAlarms('A1')[0]!];
    expect(events).toEqual([
      `raised ${raised.id} 5001 -`,
      `cleared ${raised.id} 5001 ${T2}`,
      `raised ${unreachable.id} ${UNREACHABLE_ALARM.code} -`,
    ]);
    expect(active()).toEqual([`A1:${UNREACHABLE_ALARM.code}:-`]);
  });
});
