import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeLab, labMissing } from './lab.ts';

/**
 * A real topology: the OAM, agents A1 and A2, three application servers and a client, each in a
 * network namespace of its own, joined by veth links to a bridge (in a namespace too). Traffic
 * crosses real interfaces; a server's link and then A1's link are cut.
 */
const missing = labMissing('arping');
const available = missing === null;
const prefix = `ipfe${process.pid % 10000}`;
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
const root = new URL('../../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'ipfe-netns-'));
const processes: ChildProcess[] = [];
const ns = (name: string) => `${prefix}-${name}`;

function ip(...args: string[]) {
  execFileSync('ip', args, { stdio: 'pipe' });
}

function inNs(name: string, command: string[], env: Record<string, string> = {}) {
  const child = spawn('ip', ['netns', 'exec', ns(name), ...command], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  processes.push(child);
  return child;
}

function driver(command: string, ...args: string[]): Record<string, unknown> {
  const result = spawnSync(
    'ip',
    [
      'netns',
      'exec',
      ns('client'),
      process.execPath,
      '--import',
      'tsx',
      join(root, 'apps/agent/test/netns-driver.ts'),
      command,
      ...args,
    ],
    {
      env: { ...process.env, OAM_URL: `http://${hosts.oam}:8080`, OAM_PASSWORD: PASSWORD },
      encoding: 'utf8',
      cwd: root,
    },
  );
  return JSON.parse(result.stdout.trim().split('\n').pop() || '{}');
}

async function until<T>(
  what: string,
  probe: () => T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function buildTopology() {
  ip('netns', 'add', ns('sw'));
  ip('-n', ns('sw'), 'link', 'add', 'br0', 'type', 'bridge');
  ip('-n', ns('sw'), 'link', 'set', 'br0', 'up');
  for (const [name, address] of Object.entries(hosts)) {
    ip('netns', 'add', ns(name));
    ip('link', 'add', `${prefix}${name}`, 'type', 'veth', 'peer', 'name', `${prefix}${name}p`);
    ip('link', 'set', `${prefix}${name}`, 'netns', ns(name));
    ip('link', 'set', `${prefix}${name}p`, 'netns', ns('sw'));
    ip('-n', ns(name), 'link', 'set', `${prefix}${name}`, 'name', 'eth0');
    ip('-n', ns(name), 'addr', 'add', `${address}/24`, 'dev', 'eth0');
    ip('-n', ns(name), 'link', 'set', 'eth0', 'up');
    ip('-n', ns(name), 'link', 'set', 'lo', 'up');
    ip('-n', ns('sw'), 'link', 'set', `${prefix}${name}p`, 'master', 'br0');
    ip('-n', ns('sw'), 'link', 'set', `${prefix}${name}p`, 'up');
  }
}

function removeTopology() {
  for (const child of processes) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const name of ['sw', ...Object.keys(hosts)]) spawnSync('ip', ['netns', 'del', ns(name)]);
  rmSync(dir, { recursive: true, force: true });
}

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
    buildTopology();
    inNs('oam', [process.execPath, '--import', 'tsx', join(root, 'apps/api/src/server.ts')], {
      HOST: hosts.oam,
      PORT: '8080',
      IPFE_DATA_DIR: join(dir, 'oam'),
      IPFE_ADMIN_PASSWORD: PASSWORD,
      IPFE_AGENT_TOKEN: TOKEN,
      IPFE_STATUS_INTERVAL_MS: '300',
      LOG_LEVEL: 'warn',
    });
    for (const s of ['s1', 's2', 's3'] as const) {
      inNs(s, [
        process.execPath,
        join(root, 'packages/reporter/bin/ipfe-reporter.js'),
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
      inNs(
        slot,
        [
          process.execPath,
          join(root, 'apps/agent/bin/ipfe-agent.js'),
          '--slot',
          slot.toUpperCase(),
          '--control',
          `${hosts[slot]}:8701`,
          '--state-dir',
          join(dir, slot),
          '--manage-addresses',
          'eth0',
        ],
        {
          IPFE_AGENT_TOKEN: TOKEN,
          LOG_LEVEL: 'warn',
        },
      );
    }
    await until(
      'the OAM',
      () =>
        spawnSync('ip', [
          'netns',
          'exec',
          ns('client'),
          'bash',
          '-c',
          `exec 3<>/dev/tcp/${hosts.oam}/8080`,
        ]).status === 0,
    );
    expect(driver('seed', JSON.stringify(sample))).toEqual({});
  }, 120_000);

  afterAll(() => {
    if (available) removeTopology();
  });

  it('forwards across real interfaces, survives a server link cut, and fails over when A1 is cut off', async () => {
    await until('both agents synced and A1 serving', () => {
      const state = driver('state') as State;
      const ts = state.targetSets?.items[0];
      return (
        state.ipfe?.items.filter((i) => i.state === 'synced').length === 2 &&
        ts?.owner === 'A1' &&
        ts.activeBindings?.available === 3
      );
    });
    expect(driver('echo', TSA, '20')).toEqual({ ok: 20, count: 20 });

    ip('-n', ns('s1'), 'link', 'set', 'eth0', 'down');
    await until(
      's1 offline: 2 of 3 servers bind',
      () => (driver('state') as State).targetSets.items[0]?.activeBindings?.available === 2,
    );
    expect(driver('echo', TSA, '20')).toEqual({ ok: 20, count: 20 });

    const cutAt = Date.now();
    ip('-n', ns('a1'), 'link', 'set', 'eth0', 'down');
    await until(
      'the mate answers on the TSA',
      () => (driver('echo', TSA, '1') as { ok: number }).ok === 1,
    );
    const takeoverMs = Date.now() - cutAt;
    console.log(`netns takeover after a link cut: ${takeoverMs} ms`);
    expect(takeoverMs).toBeLessThan(5000);
    await until(
      'the OAM sees A2 serving',
      () => (driver('state') as State).targetSets.items[0]?.owner === 'A2',
    );
    expect(driver('echo', TSA, '20')).toEqual({ ok: 20, count: 20 });
    expect(readFileSync(join(dir, 'a2', 'config.json'), 'utf8')).toContain(TSA);
  }, 120_000);
});
