import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressesOf,
  documentOf,
  removeDir,
  startAgent,
  testConfig,
  waitFor,
  type RunningAgent,
} from './helpers.ts';

/**
 * Active-active (issue 18) needs the direct data path: a user-space agent of the group serves
 * none of the Target Set, announces nothing, and says why.
 */
const NET = 46;
const a = addressesOf(NET);
let agent: RunningAgent;

beforeAll(async () => {
  agent = await startAgent({ host: a.a1, holdOffMs: 0 });
});

afterAll(async () => {
  await agent.stop();
  removeDir(agent.dir);
});

describe('an active-active Target Set on the user-space data path', () => {
  it('is accepted but not served, nothing is announced, and alarm 5002 names the Target Set and the reason', async () => {
    const config = testConfig(NET, (c) => {
      Object.assign(c.options, {
        bgp: {
          asn: 65001,
          peers: [{ address: '127.46.0.1', asn: 65000 }],
          bfdIntervalMs: 100,
          bfdMultiplier: 3,
        },
      });
      Object.assign(c.targetSets[0]!, { serving: 'activeActive', activeActiveIpfes: ['A1', 'A2'] });
    });
    expect((await agent.push(documentOf(2, config))).status).toBe(200);
    await waitFor('alarm 5002', async () =>
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
