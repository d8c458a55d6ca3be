import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startNetnsAgent } from './kernel-agents.ts';
import { describeLab, labMissing } from './lab.ts';
import { ip, repoRoot, Topology } from './netns-topology.ts';
import { until } from './poll.ts';

/**
 * A real topology: the OAM, agents A1 and A2, three application servers and a client, each in a
 * network namespace of its own, joined by veth links to a bridge (in a namespace too). Traffic
 * crosses real interfaces; a server's link and then A1's link are cut.
 */
const missing = labMissing('arping');
const available = missing === null;
const SUBNET = '10.231.7';
const hosts = {
  oam: `${SUBNET}.1`,
  a1: `${SUBNET}.11`,
  a2: `${SUBNET}.12`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
  s3: `${SUBNET}.23`,
  client: `${SUBNET}.50`,
} as const;
const TSA = `${SUBNET}.100`;
const TOKEN = 'netns-token-0123456789abcdefghijklmnopqrstu';
const PASSWORD = 'netns-admin-password';
const dir = mkdtempSync(join(tmpdir(), 'ipfe-netns-'));
const topology = new Topology(`ipfe${process.pid % 10000}`, hosts);

/** What the client's driver (netns-driver.ts) answers: the OAM's view, or echoes through a TSA. */
function driver(command: string, ...args: string[]): Record<string, unknown> {
  const result = spawnSync(
    'ip',
    [
      'netns',
      'exec',
      topology.ns('client'),
      process.execPath,
      '--import',
      'tsx',
      join(repoRoot, 'apps/agent/test/netns-driver.ts'),
      command,
      ...args,
    ],
    {
      env: { ...process.env, OAM_URL: `http://${hosts.oam}:8080`, OAM_PASSWORD: PASSWORD },
      encoding: 'utf8',
      cwd: repoRoot,
    },
  );
  return JSON.parse(result.stdout.trim().split('\n').pop() || '{}');
}

/** Polled every 300 ms: each probe runs the driver, a Node process of its own. */
const DRIVER_POLL_MS = 300;

const sample = [
  {
    method: 'PUT',
    url: '/api/options',
    body: {
      ipfe: { A1: { address: hosts.a1 }, A2: { address: hosts.a2 } },
      mateIntervalMs: 100,
      mateTimeoutMs: 600,
      connectTimeoutS: 2,
    },
  },
  { method: 'POST', url: '/api/xsi-networks', body: { name: 'xsi', cidr: `${SUBNET}.0/24` } },
  ...(['s1', 's2', 's3'] as const).map((s) => ({
    method: 'POST',
    url: '/api/app-servers',
    body: { name: s, addresses: [hosts[s]] },
  })),
  {
    method: 'POST',
    url: '/api/target-sets',
    body: {
      family: 'ipv4',
      algorithm: 'hash',
      primary: { address: TSA, activeIpfe: 'A1' },
      servers: [hosts.s1, hosts.s2, hosts.s3].map((address) => ({ address })),
    },
  },
];

type State = {
  ipfe: { items: { slot: string; state: string }[] };
  targetSets: { items: { owner: string | null; activeBindings: { available: number } | null }[] };
};

describeLab('a network-namespace topology', missing, () => {
  beforeAll(async () => {
    topology.build();
    topology.run(
      'oam',
      [process.execPath, '--import', 'tsx', join(repoRoot, 'apps/api/src/server.ts')],
      {
        HOST: hosts.oam,
        PORT: '8080',
        IPFE_DATA_DIR: join(dir, 'oam'),
        IPFE_ADMIN_PASSWORD: PASSWORD,
        IPFE_AGENT_TOKEN: TOKEN,
        IPFE_STATUS_INTERVAL_MS: '300',
        LOG_LEVEL: 'warn',
      },
    );
    for (const s of ['s1', 's2', 's3'] as const) {
      topology.run(s, [
        process.execPath,
        join(repoRoot, 'packages/reporter/bin/ipfe-reporter.js'),
        '--listen',
        `${hosts[s]}:9675`,
        '--mps-capacity',
        '100',
        '--connection-capacity',
        '100',
        '--echo',
        '3868',
      ]);
    }
    for (const slot of ['a1', 'a2'] as const) {
      startNetnsAgent(topology, slot, {
        control: `${hosts[slot]}:8701`,
        stateDir: join(dir, slot),
        token: TOKEN,
        sync: false,
        dataplane: 'userspace',
      });
    }
    await until(
      'the OAM',
      () =>
        topology.exec('client', ['bash', '-c', `exec 3<>/dev/tcp/${hosts.oam}/8080`]).status === 0,
      20_000,
      DRIVER_POLL_MS,
    );
    expect(driver('seed', JSON.stringify(sample))).toEqual({});
  }, 120_000);

  afterAll(() => {
    if (available) topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('forwards across real interfaces, survives a server link cut, and fails over when A1 is cut off', async () => {
    await until(
      'both agents synced and A1 serving',
      () => {
        const state = driver('state') as State;
        const ts = state.targetSets?.items[0];
        return (
          state.ipfe?.items.filter((i) => i.state === 'synced').length === 2 &&
          ts?.owner === 'A1' &&
          ts.activeBindings?.available === 3
        );
      },
      20_000,
      DRIVER_POLL_MS,
    );
    expect(driver('echo', TSA, '20')).toEqual({ ok: 20, count: 20 });

    ip('-n', topology.ns('s1'), 'link', 'set', 'eth0', 'down');
    await until(
      's1 offline: 2 of 3 servers bind',
      () => (driver('state') as State).targetSets.items[0]?.activeBindings?.available === 2,
      20_000,
      DRIVER_POLL_MS,
    );
    expect(driver('echo', TSA, '20')).toEqual({ ok: 20, count: 20 });

    const cutAt = Date.now();
    ip('-n', topology.ns('a1'), 'link', 'set', 'eth0', 'down');
    await until(
      'the mate answers on the TSA',
      () => (driver('echo', TSA, '1') as { ok: number }).ok === 1,
      20_000,
      DRIVER_POLL_MS,
    );
    const takeoverMs = Date.now() - cutAt;
    console.log(`netns takeover after a link cut: ${takeoverMs} ms`);
    expect(takeoverMs).toBeLessThan(5000);
    await until(
      'the OAM sees A2 serving',
      () => (driver('state') as State).targetSets.items[0]?.owner === 'A2',
      20_000,
      DRIVER_POLL_MS,
    );
    expect(driver('echo', TSA, '20')).toEqual({ ok: 20, count: 20 });
    expect(readFileSync(join(dir, 'a2', 'config.json'), 'utf8')).toContain(TSA);
  }, 120_000);
});
