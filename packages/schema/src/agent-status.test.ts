import { describe, expect, it } from 'vitest';
import { agentStatusSchema } from './agent-status.ts';

const status = (change: Record<string, unknown> = {}) => ({
  slot: 'A1',
  boot: 'boot-1',
  revision: 3,
  sha256: 'a'.repeat(64),
  appliedAt: '2026-01-01T00:00:00.000Z',
  dataplane: 'direct',
  forwards: ['tcp', 'sctp'],
  mate: { slot: 'A2', alive: true, lastHeardAt: null },
  owned: [],
  listening: [],
  connections: 0,
  targetSets: [
    {
      number: 1,
      disabled: false,
      algorithm: 'hash',
      activeBindings: { available: 1, total: 1 },
      notForwarded: [],
      servers: [],
    },
  ],
  monitoring: [],
  alarms: [],
  alarmHistory: [],
  counters: {
    configApplies: 1,
    configRejects: 0,
    failovers: 0,
    heartbeats: 0,
    malformedHeartbeats: 0,
  },
  ...change,
});

describe('agentStatusSchema', () => {
  it.each([
    ['userspace', ['tcp']],
    ['kernel', ['tcp']],
    ['direct', ['tcp', 'sctp']],
  ])('reads the %s data path and what it forwards', (dataplane, forwards) => {
    const parsed = agentStatusSchema.parse(status({ dataplane, forwards }));
    expect(parsed.dataplane).toBe(dataplane);
    expect(parsed.forwards).toEqual(forwards);
  });

  it('refuses a data path it does not know, and a protocol it does not know', () => {
    expect(agentStatusSchema.safeParse(status({ dataplane: 'dpdk' })).success).toBe(false);
    expect(agentStatusSchema.safeParse(status({ forwards: ['udp'] })).success).toBe(false);
  });

  it('reads an agent from before `forwards` as forwarding TCP only, as every path then did', () => {
    const old: Record<string, unknown> = status({ dataplane: 'kernel' });
    delete old.forwards;
    expect(agentStatusSchema.parse(old).forwards).toEqual(['tcp']);
  });
});
