import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressesOf,
  ask,
  documentOf,
  removeDir,
  spawnAgent,
  startAppServer,
  testConfig,
  TOKEN,
  waitFor,
  type AppServer,
} from './helpers.ts';

const NET = 34;
const a = addressesOf(NET);
const MATE_TIMEOUT_MS = 600; // testConfig's mateTimeoutMs
const dirs = {
  A1: mkdtempSync(join(tmpdir(), 'ipfe-a1-')),
  A2: mkdtempSync(join(tmpdir(), 'ipfe-a2-')),
};
const hosts = { A1: a.a1, A2: a.a2 };
const children: ChildProcess[] = [];
let servers: AppServer[];

type Status = {
  owned: { tsa: string }[];
  alarms: { code: number }[];
  alarmHistory: { code: number; clearedAt: string | null }[];
};
const status = async (slot: 'A1' | 'A2'): Promise<Status> =>
  (await (
    await fetch(`http://${hosts[slot]}:8701/v1/status`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
  ).json()) as Status;
const owns = async (slot: 'A1' | 'A2') => (await status(slot)).owned.some((o) => o.tsa === a.tsa);

function start(slot: 'A1' | 'A2') {
  const child = spawnAgent({ slot, host: hosts[slot], dir: dirs[slot] });
  children.push(child);
  return child;
}

beforeAll(async () => {
  servers = await Promise.all(a.servers.map((s) => startAppServer(s)));
  const document = documentOf(1, testConfig(NET));
  for (const slot of ['A1', 'A2'] as const) {
    start(slot);
    await waitFor(
      `${slot} up`,
      async () => (await fetch(`http://${hosts[slot]}:8701/v1/health`)).ok,
    );
    const response = await fetch(`http://${hosts[slot]}:8701/v1/config`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(document),
    });
    expect(response.status).toBe(200);
  }
  await waitFor('A1 serves the TSA', () => owns('A1'));
  await waitFor('the TSA answers', () => ask(a.tsa));
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.close()));
  removeDir(dirs.A1);
  removeDir(dirs.A2);
});

describe('mate failover', () => {
  it('serves the TSA from the mate within mateTimeoutMs + 200 ms of a SIGKILL, and gives it back after the hold-off', async () => {
    expect(await owns('A2')).toBe(false);
    const a1 = children[0]!;
    const killedAt = Date.now();
    a1.kill('SIGKILL');
    await waitFor('the mate answers on the TSA', () => ask(a.tsa).catch(() => ''), 5000);
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThan(MATE_TIMEOUT_MS + 200);
    expect(await owns('A2')).toBe(true);
    expect((await status('A2')).alarms.map((x) => x.code)).toContain(5012);

    // The preferred active comes back with its persisted configuration (no OAM involved).
    const restartedAt = Date.now();
    start('A1');
    await waitFor('A1 serves again', () => owns('A1').catch(() => false), 10_000);
    expect(Date.now() - restartedAt).toBeGreaterThanOrEqual(2000); // the preemption hold-off
    await waitFor('A2 lets go', async () => !(await owns('A2')));
    expect(a.servers).toContain(
      await waitFor('A1 answers on the TSA', () => ask(a.tsa).catch(() => '')),
    );
    expect((await status('A1')).owned.map((o) => o.tsa)).toEqual([a.tsa]);
    const a2 = await status('A2');
    expect(a2.alarms.map((x) => x.code)).not.toContain(5012);
    expect(a2.alarmHistory.some((x) => x.code === 5012 && x.clearedAt !== null)).toBe(true);
  });
});
