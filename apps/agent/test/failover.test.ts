import type { ChildProcess } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ask } from './loopback-peers.ts';
import { controlOf, loopbackLab } from './loopback-lab.ts';
import { until } from './poll.ts';

const lab = loopbackLab(import.meta.url);
const MATE_TIMEOUT_MS = 600; // the lab configuration's mateTimeoutMs
/** The takeover is timed: the wait for it polls finely. */
const FINE_POLL_MS = 50;
const hosts = { A1: lab.a1, A2: lab.a2 };
const dirs = { A1: lab.stateDir(), A2: lab.stateDir() };
const control = { A1: controlOf(lab.a1), A2: controlOf(lab.a2) };
const children: ChildProcess[] = [];

const owns = async (slot: 'A1' | 'A2') =>
  (await control[slot].status()).owned.some((o) => o.tsa === lab.tsa);

function start(slot: 'A1' | 'A2') {
  const child = lab.spawnAgent({ slot, host: hosts[slot], dir: dirs[slot] });
  children.push(child);
  return child;
}

beforeAll(async () => {
  await lab.startAppServers();
  const document = lab.document();
  for (const slot of ['A1', 'A2'] as const) {
    start(slot);
    await until(`${slot} up`, () => control[slot].health());
    expect((await control[slot].push(document)).status).toBe(200);
  }
  await until('A1 serves the TSA', () => owns('A1'));
  await until('the TSA answers', () => ask(lab.tsa));
}, 60_000);

describe('mate failover', () => {
  it('serves the TSA from the mate within mateTimeoutMs + 200 ms of a SIGKILL, and gives it back after the hold-off', async () => {
    expect(await owns('A2')).toBe(false);
    const a1 = children[0]!;
    const killedAt = Date.now();
    a1.kill('SIGKILL');
    await until('the mate answers on the TSA', () => ask(lab.tsa), 5000, FINE_POLL_MS);
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThan(MATE_TIMEOUT_MS + 200);
    expect(await owns('A2')).toBe(true);
    expect((await control.A2.status()).alarms.map((x) => x.code)).toContain(5012);

    // The preferred active comes back with its persisted configuration (no OAM involved).
    const restartedAt = Date.now();
    start('A1');
    await until('A1 serves again', () => owns('A1'), 10_000);
    expect(Date.now() - restartedAt).toBeGreaterThanOrEqual(2000); // the preemption hold-off
    await until('A2 lets go', async () => !(await owns('A2')));
    expect(lab.servers).toContain(await until('A1 answers on the TSA', () => ask(lab.tsa)));
    expect((await control.A1.status()).owned.map((o) => o.tsa)).toEqual([lab.tsa]);
    const a2 = await control.A2.status();
    expect(a2.alarms.map((x) => x.code)).not.toContain(5012);
    expect(a2.alarmHistory.some((x) => x.code === 5012 && x.clearedAt !== null)).toBe(true);
  });
});
