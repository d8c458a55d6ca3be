import { describe, expect, it } from 'vitest';
import { alarmSummaryOf } from './alarm-summary';

const alarms = (...severities: string[]) => severities.map((severity) => ({ severity }));

describe('alarmSummaryOf', () => {
  it.each([
    ['no active alarm', alarms(), null],
    ['one major', alarms('major'), { count: 1, severity: 'major', atSeverity: 1 }],
    [
      'a critical among majors and minors, in any order',
      alarms('minor', 'major', 'critical', 'major'),
      { count: 4, severity: 'critical', atSeverity: 1 },
    ],
    ['two minors', alarms('minor', 'minor'), { count: 2, severity: 'minor', atSeverity: 2 }],
    [
      'an unknown severity ranks below minor',
      alarms('warning', 'minor'),
      { count: 2, severity: 'minor', atSeverity: 1 },
    ],
  ])('%s', (_what, active, expected) => {
    expect(alarmSummaryOf(active)).toEqual(expected);
  });
});
