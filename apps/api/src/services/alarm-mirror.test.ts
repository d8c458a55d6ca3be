import type { AgentAlarm } from '@ipfe/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/store.ts';
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
  name: 'Signaling Interface Heartbeat Timeout',
  severity: 'critical',
  targetSet: null,
  server: null,
  text: 'No beacon from IPFE A2 for 3000 ms',
  raisedAt: T0,
  clearedAt: null,
};

let store: Store;
let repository: AgentSyncRepository;
let mirror: AlarmMirror;
beforeEach(async () => {
  store = await Store.open({ file: ':memory:' });
  repository = new AgentSyncRepository(store);
  mirror = new AlarmMirror(repository);
});
afterEach(() => store.close());

const active = async (slot?: string) =>
  (await repository.activeAlarms(slot)).map((a) => `${a.slot}:${a.code}:${a.server ?? '-'}`);
const cleared = async () =>
  (await repository.history(10)).map((a) => `${a.slot}:${a.code}@${a.clearedAt}`);

describe('AlarmMirror', () => {
  it("keeps each slot's active alarms as its agent reports them", async () => {
    await mirror.reported('A1', { alarms: [backendDown, mateTimeout], alarmHistory: [] }, T0);
    await mirror.reported('A2', { alarms: [backendDown], alarmHistory: [] }, T0);
    // Reported again: nothing is raised twice.
    await mirror.reported('A1', { alarms: [backendDown, mateTimeout], alarmHistory: [] }, T1);
    expect(await active()).toEqual(['A1:5001:127.0.1.2', 'A1:5012:-', 'A2:5001:127.0.1.2']);
    expect(await cleared()).toEqual([]);
  });

  it('reads an agent of an earlier release by this release’s numbers (5100 rejected is 5150 now)', async () => {
    const rejected: AgentAlarm = {
      ...backendDown,
      code: 5100,
      name: 'Configuration Rejected',
      severity: 'minor',
      targetSet: null,
      server: null,
      text: 'Target Set 1: …',
    };
    const oldMate = { ...mateTimeout, name: 'Mate Heartbeat Timeout', severity: 'major' as const };
    await mirror.reported('A1', { alarms: [rejected, oldMate], alarmHistory: [] }, T0);
    expect(await active()).toEqual(['A1:5150:-', 'A1:5012:-']);
    const stored = await repository.activeAlarms('A1');
    expect(stored.map((a) => [a.code, a.name, a.severity])).toEqual([
      [5150, 'Configuration Rejected', 'minor'],
      [5012, 'Signaling Interface Heartbeat Timeout', 'critical'],
    ]);
    // Reported again the old way after the upgrade of the OAM: the same alarms, none raised twice.
    await mirror.reported('A1', { alarms: [rejected, oldMate], alarmHistory: [] }, T1);
    expect(await active()).toEqual(['A1:5150:-', 'A1:5012:-']);
  });

  it("clears an alarm the agent no longer reports, at the time of the agent's history", async () => {
    await mirror.reported('A1', { alarms: [backendDown, mateTimeout], alarmHistory: [] }, T0);
    await mirror.reported(
      'A1',
      { alarms: [mateTimeout], alarmHistory: [{ ...backendDown, clearedAt: T1 }] },
      T2,
    );
    expect(await active()).toEqual(['A1:5012:-']);
    expect(await cleared()).toEqual([`A1:5001@${T1}`]);
  });

  it('clears an alarm gone from the agent without a history entry now', async () => {
    await mirror.reported('A1', { alarms: [mateTimeout], alarmHistory: [] }, T0);
    await mirror.reported('A1', { alarms: [], alarmHistory: [] }, T2);
    expect(await active()).toEqual([]);
    expect(await cleared()).toEqual([`A1:5012@${T2}`]);
  });

  it('tells a raise again (a new raisedAt) from the alarm still active', async () => {
    await mirror.reported('A1', { alarms: [mateTimeout], alarmHistory: [] }, T0);
    const again = { ...mateTimeout, raisedAt: T1 };
    await mirror.reported(
      'A1',
      { alarms: [again], alarmHistory: [{ ...mateTimeout, clearedAt: T1 }] },
      T1,
    );
    expect((await repository.activeAlarms('A1')).map((a) => a.raisedAt)).toEqual([T1]);
    expect(await cleared()).toEqual([`A1:5012@${T1}`]);
  });

  it("raises the unreachable alarm once for a silent agent and clears that agent's own alarms", async () => {
    await mirror.reported('A1', { alarms: [backendDown], alarmHistory: [] }, T0);
    await mirror.reported('A2', { alarms: [mateTimeout], alarmHistory: [] }, T0);
    await mirror.unreachable('A1', 'ECONNREFUSED', T1);
    await mirror.unreachable('A1', 'ECONNREFUSED', T2);
    expect(await active()).toEqual(['A2:5012:-', `A1:${UNREACHABLE_ALARM.code}:-`]);
    expect((await repository.activeAlarms('A1'))[0]).toMatchObject({
      ...UNREACHABLE_ALARM,
      text: 'IPFE A1 does not answer (ECONNREFUSED)',
      raisedAt: T1,
    });
    expect(await cleared()).toEqual([`A1:5001@${T1}`]);
  });

  it('clears the unreachable alarm when the agent answers again', async () => {
    await mirror.unreachable('A1', 'timed out', T0);
    await mirror.reported('A1', { alarms: [backendDown], alarmHistory: [] }, T2);
    expect(await active('A1')).toEqual(['A1:5001:127.0.1.2']);
    expect(await cleared()).toEqual([`A1:${UNREACHABLE_ALARM.code}@${T2}`]);
  });
  it('tells its listeners of each alarm raised and cleared once logged, and a throwing one breaks nothing', async () => {
    const events: string[] = [];
    mirror.onAlarm(() => {
      throw new Error('a listener that fails');
    });
    mirror.onAlarm(({ kind, alarm }) =>
      events.push(`${kind} ${alarm.id} ${alarm.code} ${alarm.clearedAt ?? '-'}`),
    );
    await mirror.reported('A1', { alarms: [backendDown], alarmHistory: [] }, T0);
    await mirror.reported('A1', { alarms: [backendDown], alarmHistory: [] }, T1);
    await mirror.unreachable('A1', 'ECONNREFUSED', T2);
    const [raised, unreachable] = [
      (await repository.history(1))[0]!,
      (await repository.activeAlarms('A1'))[0]!,
    ];
    expect(events).toEqual([
      `raised ${raised.id} 5001 -`,
      `cleared ${raised.id} 5001 ${T2}`,
      `raised ${unreachable.id} ${UNREACHABLE_ALARM.code} -`,
    ]);
    expect(await active()).toEqual([`A1:${UNREACHABLE_ALARM.code}:-`]);
  });
});
