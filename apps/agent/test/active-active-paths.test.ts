import { beforeAll, describe, expect, it } from 'vitest';
import { loopbackLab, type RunningAgent } from './loopback-lab.ts';
import { until } from './poll.ts';

/**
 * Active-active (issue 18) needs the direct data path: a user-space agent of the group serves
 * none of the Target Set, announces nothing, and says why.
 */
const lab = loopbackLab(import.meta.url);
let agent: RunningAgent;

beforeAll(async () => {
  agent = await lab.startAgent({ holdOffMs: 0 });
});

describe('an active-active Target Set on the user-space data path', () => {
  it('is accepted but not served, nothing is announced, and alarm 5002 names the Target Set and the reason', async () => {
    await lab.configure(agent, (c) => {
      Object.assign(c.options, {
        bgp: {
          asn: 65001,
          peers: [{ address: lab.address('0.1'), asn: 65000 }],
          bfdIntervalMs: 100,
          bfdMultiplier: 3,
        },
      });
      Object.assign(c.targetSets[0]!, { serving: 'activeActive', activeActiveIpfes: ['A1', 'A2'] });
    });
    await until('alarm 5002', async () =>
      (await agent.status()).alarms.some((alarm) => alarm.code === 5002),
    );
    const status = await agent.status();
    expect(status.owned).toEqual([]);
    expect(status.listening).toEqual([]);
    expect(status.bgp ?? null).toBeNull();
    expect(status.alarms.find((alarm) => alarm.code === 5002)).toMatchObject({
      targetSet: 1,
      text: 'Target Set 1 is active-active but nothing is announced: only the direct data path serves it (this node runs the userspace path)',
    });
  });
});
