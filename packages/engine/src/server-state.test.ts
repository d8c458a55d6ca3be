import { describe, expect, it } from 'vitest';
import { inStasis, isReportableState, SERVER_STATES, STATE_RULES } from './server-state.ts';
import { SPEC_STATE_TABLE } from './testing.ts';

describe('server states (SPEC §3.1)', () => {
  it('follow the table of the specification, row by row', () => {
    expect(Object.keys(STATE_RULES)).toEqual([...SERVER_STATES]);
    for (const state of SERVER_STATES)
      expect(STATE_RULES[state], state).toEqual(SPEC_STATE_TABLE[state]);
  });

  it('call stressed and worse "in stasis"', () => {
    expect(SERVER_STATES.filter(inStasis)).toEqual(['stressed', 'overloaded', 'halting']);
  });

  it('accept in heartbeats every state but offline and initializing', () => {
    expect(SERVER_STATES.filter(isReportableState)).toEqual([
      'underused',
      'normal',
      'burdened',
      'stressed',
      'overloaded',
      'halting',
    ]);
    expect(isReportableState('bogus')).toBe(false);
  });
});
