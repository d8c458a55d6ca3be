import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IpfeView } from '@ipfe/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { login, startApp, waitFor, type Client, type TestApp } from './helpers.ts';

/**
 * IPFE Unreachable (5151) at the OAM's start: a real OAM whose IPFE A1 is on loopback
 * (127.41.0.0/16), first where nobody listens, then a real agent process there.
 */
const TOKEN = 'start-grace-token-0123456789abcdefghijklmnop';
const agentBin = new URL('../../agent/bin/ipfe-agent.js', import.meta.url).pathname;

let t: TestApp | null = null;
let agent: ChildProcess | null = null;
let stateDir: string | null = null;

afterEach(async () => {
  agent?.kill('SIGKILL');
  agent = null;
  await t?.close();
  t = null;
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  stateDir = null;
});

/** A real OAM that polls often, its IPFE A1 at `address`, and its admin. */
async function oamWithA1(address: string, startGraceMs: number): Promise<Client> {
  t = await startApp({
    agentToken: TOKEN,
    agentSync: { enabled: true, pollIntervalMs: 100, backoffMaxMs: 300, startGraceMs },
  });
  await t.app.ready();
  const admin = await login(t.app);
  const options = await admin.edit('/api/options', { ipfe: { A1: { address } } });
  expect(options.statusCode, options.body).toBeLessThan(300);
  return admin;
}

function startAgent(address: string) {
  stateDir = mkdtempSync(join(tmpdir(), 'ipfe-grace-a1-'));
  agent = spawn(
    process.execPath,
    [agentBin, '--slot', 'A1', '--control', `${address}:8701`, '--state-dir', stateDir],
    { env: { ...process.env, IPFE_AGENT_TOKEN: TOKEN, LOG_LEVEL: 'warn' }, stdio: 'ignore' },
  );
}

interface Alarm {
  slot: string;
  code: number;
  raisedAt: string;
}
const alarmsOf = async (admin: Client) =>
  (await admin.get('/api/alarms')).json() as { active: Alarm[]; history: Alarm[] };
const a1 = async (admin: Client) =>
  ((await admin.get('/api/ipfe')).json() as IpfeView).items.find((i) => i.slot === 'A1')!;
const unreachableAlarms = (alarms: { active: Alarm[]; history: Alarm[] }) =>
  [...alarms.active, ...alarms.history].filter((a) => a.slot === 'A1' && a.code === 5151);

describe('IPFE Unreachable at the start of the OAM', () => {
  it('is not raised for an agent not reached yet during the start grace; an agent that answered and stops is alarmed at once', async () => {
    const address = '127.41.0.11';
    const admin = await oamWithA1(address, 600_000);
    // Three failed polls: the point where the alarm used to be raised.
    await waitFor('A1 unreachable', async () => (await a1(admin)).state === 'unreachable');
    expect(unreachableAlarms(await alarmsOf(admin))).toEqual([]);

    startAgent(address);
    await waitFor('A1 synced', async () => (await a1(admin)).state === 'synced');
    expect(unreachableAlarms(await alarmsOf(admin))).toEqual([]);

    agent!.kill('SIGKILL');
    const raised = await waitFor('5151 raised for A1', async () =>
      (await alarmsOf(admin)).active.find((a) => a.slot === 'A1' && a.code === 5151),
    );
    expect(raised).toMatchObject({ severity: 'major', name: 'IPFE Unreachable' });
  });

  it('is raised for an agent never reached once the start grace is over', async () => {
    const graceMs = 1_000;
    const before = Date.now();
    const admin = await oamWithA1('127.41.0.21', graceMs);
    const raised = await waitFor('5151 raised for A1', async () =>
      (await alarmsOf(admin)).active.find((a) => a.slot === 'A1' && a.code === 5151),
    );
    expect(raised).toMatchObject({ name: 'IPFE Unreachable' });
    // Not before the grace: the OAM started after `before`.
    expect(Date.parse(raised.raisedAt) - before).toBeGreaterThanOrEqual(graceMs);
    expect(unreachableAlarms(await alarmsOf(admin))).toHaveLength(1);
  });
});
