import { describe, expect, it } from 'vitest';
import type { AlarmRecord } from '@ipfe/schema';
import { dateAndTime, NOTIFICATIONS, OBJECT_OIDS, trapOf } from './snmp-trap-varbinds.ts';

const alarm: AlarmRecord = {
  id: 12,
  slot: 'B2',
  code: 5009,
  name: 'No Available Servers in Target Set',
  severity: 'critical',
  targetSet: 7,
  server: null,
  text: 'No server of Target Set 7 can take new connections',
  raisedAt: '2026-12-01T16:05:09.870Z',
  clearedAt: null,
};
const value = (trap: ReturnType<typeof trapOf>, name: keyof typeof OBJECT_OIDS) =>
  trap.varbinds.find((v) => v.oid === OBJECT_OIDS[name])?.value;

describe('trapOf', () => {
  it('makes the raised notification with every object but the clear time', () => {
    const trap = trapOf({ kind: 'raised', alarm });
    expect(trap.oid).toBe(NOTIFICATIONS.raised);
    expect(value(trap, 'ipfeAlarmSeverity')).toBe(3);
    expect(value(trap, 'ipfeAlarmTargetSet')).toBe(7);
    expect(String(value(trap, 'ipfeAlarmServer'))).toBe('');
    expect(value(trap, 'ipfeAlarmClearedAt')).toBeUndefined();
  });

  it('adds the clear time to the cleared notification', () => {
    const trap = trapOf({
      kind: 'cleared',
      alarm: { ...alarm, clearedAt: '2026-12-01T17:00:00.000Z' },
    });
    expect(trap.oid).toBe(NOTIFICATIONS.cleared);
    expect(value(trap, 'ipfeAlarmClearedAt')).toEqual(dateAndTime('2026-12-01T17:00:00.000Z'));
  });

  it('sends an event an earlier release queued under this release’s number (5101 → 5151)', () => {
    const queued = { ...alarm, code: 5101, name: 'IPFE Unreachable', severity: 'major' };
    const trap = trapOf({ kind: 'raised', alarm: queued });
    expect(value(trap, 'ipfeAlarmNumber')).toBe(5151);
    expect(String(value(trap, 'ipfeAlarmName'))).toBe('IPFE Unreachable');
    // 5101 is CPU Overload now: sent as it is.
    const cpu = { ...alarm, code: 5101, name: 'CPU Overload', severity: 'major' };
    expect(value(trapOf({ kind: 'raised', alarm: cpu }), 'ipfeAlarmNumber')).toBe(5101);
  });

  it('numbers an unknown severity indeterminate(2)', () => {
    expect(
      value(trapOf({ kind: 'raised', alarm: { ...alarm, severity: 'odd' } }), 'ipfeAlarmSeverity'),
    ).toBe(2);
  });

  it('cuts a text longer than 255 octets at a character, never inside one', () => {
    const text = 'é'.repeat(200); // 400 octets in UTF-8
    const cut = value(
      trapOf({ kind: 'raised', alarm: { ...alarm, text } }),
      'ipfeAlarmText',
    ) as Buffer;
    expect(cut.length).toBe(254);
    expect(cut.toString('utf8')).toBe('é'.repeat(127));
  });
});

describe('dateAndTime', () => {
  it('writes SNMPv2-TC DateAndTime in UTC: year, month, day, h, min, s, deci-s, +0:0', () => {
    expect([...dateAndTime('2026-12-01T16:05:09.870Z')]).toEqual([
      0x07, 0xea, 12, 1, 16, 5, 9, 8, 0x2b, 0, 0,
    ]);
  });
});
