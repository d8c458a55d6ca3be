import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReporter, type Reporter } from '@ipfe/reporter';
import type { IpfeView } from '@ipfe/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnAgent } from './agent-process.ts';
import {
  configureMatesLab,
  login,
  startApp,
  testEngine,
  waitFor,
  type Client,
  type TestApp,
} from './helpers.ts';

/** The OAM with two real agent processes on loopback (127.40.0.0/16). */
const TOKEN = 'integration-token-0123456789abcdefghijklmnop';
const A1 = '127.40.0.11';
const A2 = '127.40.0.12';
const TSA = '127.40.0.100';
const SERVERS = ['127.40.1.1', '127.40.1.2', '127.40.1.3'];
const stateDirs = {
  A1: mkdtempSync(join(tmpdir(), 'ipfe-sync-a1-')),
  A2: mkdtempSync(join(tmpdir(), 'ipfe-sync-a2-')),
};
const agents: Partial<Record<'A1' | 'A2', ChildProcess>> = {};
let t: TestApp;
let admin: Client;
let reporters: Reporter[];

function startAgent(slot: 'A1' | 'A2', token = TOKEN) {
  agents[slot]?.kill('SIGKILL');
  agents[slot] = spawnAgent({
    slot,
    control: `${slot === 'A1' ? A1 : A2}:8701`,
    stateDir: stateDirs[slot],
    token,
  });
}

const ipfe = async () => (await admin.get('/api/ipfe')).json() as IpfeView;
const slotView = async (slot: string) => (await ipfe()).items.find((i) => i.slot === slot)!;
const synced = (slot: string) => async () => {
  const view = await ipfe();
  const s = view.items.find((i) => i.slot === slot)!;
  return s.state === 'synced' && s.appliedRevision === view.latestRevision;
};

beforeAll(async () => {
  reporters = await Promise.all(
    SERVERS.map((host) =>
      createReporter({ listen: { host, port: 9675 }, mpsCapacity: 100, connectionCapacity: 100 }),
    ),
  );
  t = await startApp({
    agentToken: TOKEN,
    agentSync: { enabled: true, pollIntervalMs: 200, backoffMaxMs: 500 },
  });
  await t.app.ready();
  admin = await login(t.app);
  await configureMatesLab(admin, {
    a1: A1,
    a2: A2,
    cidr: '127.40.0.0/16',
    servers: SERVERS,
    tsa: TSA,
  });
  startAgent('A1');
  startAgent('A2');
}, 60_000);

afterAll(async () => {
  for (const child of Object.values(agents)) child?.kill('SIGKILL');
  await t.close();
  rmSync(t.dir, { recursive: true, force: true });
  await Promise.all(reporters.map((r) => r.close()));
  for (const dir of Object.values(stateDirs)) rmSync(dir, { recursive: true, force: true });
});

describe('pushing revisions to the agents', () => {
  it('brings both agents to the latest revision and shows who serves the TSA', async () => {
    await waitFor('A1 synced', synced('A1'));
    await waitFor('A2 synced', synced('A2'));
    await waitFor('A1 owns the TSA', async () =>
      (await slotView('A1')).owned.some((o) => o.tsa === TSA),
    );
    const ts = await waitFor('live fields', async () => {
      const body = (await admin.get('/api/target-sets/1')).json();
      return body.activeBindings?.available === 3 ? body : undefined;
    });
    expect(ts.owner).toBe('A1');
    expect(ts.activeBindings).toEqual({ available: 3, total: 3 });
    // How each agent forwards, as it reports it: these run the user-space path, TCP only, so the
    // SCTP half of this "Both" Target Set is not forwarded where it is served.
    expect(await slotView('A1')).toMatchObject({
      dataplane: 'userspace',
      forwards: ['tcp'],
      connections: 0,
    });
    expect(ts.notForwarded).toEqual(['sctp']);
  });

  it('refuses a change that neither IPFE could serve, on every route that commits, and commits nothing', async () => {
    await waitFor(
      'A1 serves the TSA',
      async () => (await ipfe()).unserved.length === 0 || undefined,
    );
    const options = (await admin.get('/api/options')).json();
    const withBgp = await admin.edit('/api/options', {
      ...options,
      bgp: { asn: 65010, peers: [{ address: '127.40.0.254', asn: 65000 }] },
    });
    expect(withBgp.statusCode, withBgp.body).toBe(200);
    const latest = (await ipfe()).latestRevision;
    const refusal = `No IPFE could serve ${TSA}: only the direct data path serves Active-Active, and IPFE-A1 and IPFE-A2 run the user-space data path`;
    const { warnings, owner, activeBindings, notForwarded, notServed, ...ts } = (
      await admin.get('/api/target-sets/1')
    ).json();
    void [warnings, owner, activeBindings, notForwarded, notServed];
    const activeActive = {
      ...ts,
      primary: { address: TSA },
      servers: SERVERS.map((address) => ({ address })),
      algorithm: 'hash',
      serving: 'activeActive',
      activeActiveIpfes: ['A1', 'A2'],
    };
    const edited = await admin.edit('/api/target-sets/1', activeActive);
    expect(edited.statusCode, edited.body).toBe(400);
    expect(edited.json().error.fields).toEqual([{ path: 'activeActiveIpfes', message: refusal }]);
    // The same document through the CLI's route: its plan names the problem, its apply refuses it.
    const document = (await admin.get('/api/export')).json();
    const config = { ...document.config, targetSets: [activeActive] };
    const plan = await admin.post('/api/config/plan', { ...document, config });
    expect(plan.json().problems).toEqual([
      { path: 'config.targetSets.0.activeActiveIpfes', message: refusal },
    ]);
    const applied = await admin.put('/api/config', { ...document, config }, `"${latest}"`);
    expect(applied.statusCode, applied.body).toBe(400);
    expect((await ipfe()).latestRevision).toBe(latest);
    // SCTP only: neither user-space path forwards it.
    const sctp = await admin.edit('/api/target-sets/1', {
      ...activeActive,
      serving: 'activeStandby',
      activeActiveIpfes: undefined,
      protocols: 'sctp',
    });
    expect(sctp.statusCode, sctp.body).toBe(400);
    expect(sctp.json().error.fields[0].path).toBe('protocols');
    expect((await ipfe()).latestRevision).toBe(latest);
    expect((await admin.edit('/api/options', options)).statusCode).toBe(200);
  });

  it('keeps committing while an agent is down, and the agent gets the latest revision when it is back', async () => {
    agents.A2!.kill('SIGKILL');
    await waitFor('A2 unreachable', async () => (await slotView('A2')).state === 'unreachable');
    const started = Date.now();
    const commit = await admin.post('/api/xsi-networks', { name: 'spare', cidr: '10.99.0.0/16' });
    expect(commit.statusCode).toBe(201);
    expect(Date.now() - started).toBeLessThan(1000); // a dead agent does not delay a commit
    await waitFor('A1 synced with the new revision', synced('A1'));
    expect((await slotView('A2')).state).toBe('unreachable');
    // Raised once the polls have failed a few times in a row (a failed push alone does not).
    await waitFor('A2 alarmed unreachable', async () =>
      (await admin.get('/api/alarms'))
        .json()
        .active.some((a: { slot: string; code: number }) => a.slot === 'A2' && a.code === 5151),
    );
    await waitFor('A1 raised the mate heartbeat alarm', async () =>
      (await admin.get('/api/alarms'))
        .json()
        .active.some((a: { slot: string; code: number }) => a.slot === 'A1' && a.code === 5012),
    );
    startAgent('A2');
    await waitFor('A2 synced again', synced('A2'));
    await waitFor('the mate alarm cleared into history', async () => {
      const body = (await admin.get('/api/alarms')).json();
      return (
        !body.active.some((a: { code: number }) => a.code === 5012 || a.code === 5151) &&
        body.history.some(
          (a: { slot: string; code: number; clearedAt: string }) =>
            a.slot === 'A1' && a.code === 5012 && a.clearedAt,
        )
      );
    });
  });

  it("shows a push an agent rejects as rejected with the agent's message; the other stays synced", async () => {
    startAgent('A2', 'another-token-that-the-oam-does-not-have-000');
    await new Promise((r) => setTimeout(r, 1500));
    await admin.post('/api/xsi-networks', { name: 'spare2', cidr: '10.98.0.0/16' });
    await waitFor('A1 synced', synced('A1'));
    const a2 = await waitFor('A2 rejected', async () => {
      const s = await slotView('A2');
      return s.state === 'rejected' ? s : undefined;
    });
    expect(a2?.rejected?.error).toBe('The agent refused the deployment token');
    // Fixed and restarted, the agent gets the rejected revision again without a new commit.
    startAgent('A2');
    await waitFor('A2 synced after its restart', synced('A2'));
  });

  // SQLite-only for now: the restart reopens the data folder; the PostgreSQL pass gives each
  // startApp a database of its own.
  it.runIf(testEngine() === 'sqlite')('remembers push state across an OAM restart', async () => {
    const before = await ipfe();
    await t.app.close();
    const again = await startApp({ dir: t.dir, agentToken: TOKEN, agentSync: { enabled: false } });
    const client = await login(again.app);
    const after = (await client.get('/api/ipfe')).json() as IpfeView;
    expect(after.items.map((i) => [i.slot, i.state, i.appliedRevision])).toEqual(
      before.items.map((i) => [i.slot, i.state, i.appliedRevision]),
    );
    await again.close();
    t = await startApp({ dir: t.dir, agentToken: TOKEN, agentSync: { enabled: false } });
  });
});
