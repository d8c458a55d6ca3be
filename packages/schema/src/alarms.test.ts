import { describe, expect, it } from 'vitest';
import { ALARM, ALARM_CATALOG, currentAlarm, RENUMBERED } from './alarms.ts';

describe('the alarm catalog', () => {
  it('names every number once, the source product’s under their numbers there', () => {
    expect(Object.keys(ALARM_CATALOG).map(Number).sort()).toEqual(
      Object.values(ALARM).sort((a, b) => a - b),
    );
    expect(ALARM_CATALOG[5100].name).toBe('Traffic Overload');
    expect(ALARM_CATALOG[5101].name).toBe('CPU Overload');
    expect(ALARM_CATALOG[5012]).toMatchObject({
      name: 'Signaling Interface Heartbeat Timeout',
      severity: 'critical',
    });
  });

  it('gives our own alarms numbers outside those the source uses', () => {
    const own = Object.entries(ALARM_CATALOG).filter(([, a]) => a.origin === 'own');
    for (const [code] of own) expect(Number(code)).toBeGreaterThanOrEqual(5150);
  });

  it.each([
    {
      old: { code: 5100, name: 'Configuration Rejected', severity: 'minor' },
      now: { code: 5150, name: 'Configuration Rejected', severity: 'minor' },
    },
    {
      old: { code: 5101, name: 'IPFE Unreachable', severity: 'major' },
      now: { code: 5151, name: 'IPFE Unreachable', severity: 'major' },
    },
    {
      old: { code: 5020, name: 'BGP Session Down', severity: 'major' },
      now: { code: 5152, name: 'BGP Session Down', severity: 'major' },
    },
    {
      old: { code: 5012, name: 'Mate Heartbeat Timeout', severity: 'major' },
      now: { code: 5012, name: 'Signaling Interface Heartbeat Timeout', severity: 'critical' },
    },
  ])('reads an earlier release’s $old.code $old.name as $now.code', ({ old, now }) => {
    expect(currentAlarm({ ...old, text: 'kept' })).toEqual({ ...now, text: 'kept' });
  });

  it('leaves an alarm of this release as it is (5100 Traffic Overload is not a rejection)', () => {
    const overload = { code: 5100, name: 'Traffic Overload', severity: 'major' };
    expect(currentAlarm(overload)).toBe(overload);
    expect(RENUMBERED.every((r) => ALARM_CATALOG[r.now])).toBe(true);
  });
});
