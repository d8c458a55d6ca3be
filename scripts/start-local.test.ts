import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL } from './local-stack.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
const dataDir = mkdtempSync(join(tmpdir(), 'ipfe-local-'));
const PORT = 18377;
const oam = `http://127.0.0.1:${PORT}`;
let stack: ChildProcess | null = null;
let output = '';

afterAll(() => {
  stack?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}\n${output.slice(-3000)}`);
}

function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [tsx, ...args], {
    cwd: root,
    env: {
      ...process.env,
      IPFE_DATA_DIR: dataDir,
      PORT: String(PORT),
      IPFE_SKIP_WEB_BUILD: '1',
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return child;
}

describe('npm start: the whole system on loopback', () => {
  it('starts the OAM, two agents and three servers, seeds a sample, forwards, outlives a stopped server, and stops cleanly on Ctrl-C', async () => {
    stack = run(['scripts/start-local.ts']);
    await waitFor('the credentials printed', async () =>
      output.includes('log in as admin with password'),
    );
    const password = readFileSync(join(dataDir, 'initial-admin-password'), 'utf8').trim();
    expect(output).toContain(`IPFE OAM is up: ${oam}`);
    expect(output).toContain(`password ${password}`);

    const login = await fetch(`${oam}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const get = async (url: string) =>
      (await fetch(`${oam}${url}`, { headers: { cookie } })).json();
    const targetSets = (await get('/api/target-sets')) as {
      items: { number: number; algorithm: string }[];
    };
    expect(targetSets.items.map((t) => [t.number, t.algorithm])).toEqual([
      [1, 'leastLoad'],
      [2, 'hash'],
    ]);
    await waitFor('both agents synced', async () => {
      const ipfe = (await get('/api/ipfe')) as { items: { slot: string; state: string }[] };
      return ipfe.items.filter((i) => i.state === 'synced').length === 2;
    });
    await waitFor('TSAs owned by their active IPFEs', async () => {
      const ts = (await get('/api/target-sets')) as {
        items: { owner: string | null; activeBindings: { available: number } | null }[];
      };
      return (
        ts.items[0]?.owner === 'A1' &&
        ts.items[1]?.owner === 'A2' &&
        ts.items.every((t) => t.activeBindings?.available === 3)
      );
    });

    const traffic = run([
      'scripts/demo-traffic.ts',
      '--duration',
      '3',
      '--rate',
      '20',
      '--hold',
      '4',
    ]);
    const code = await new Promise((resolve) => traffic.once('exit', resolve));
    expect(code).toBe(0);
    const done = /done: opened (\d+), answered (\d+), failed (\d+)/.exec(output);
    expect(done).not.toBeNull();
    expect(Number(done![2])).toBeGreaterThan(30);
    expect(Number(done![3])).toBe(0);

    // An operator kills one application server to see an outage: the rest keeps running.
    const mp3 = Number(/mp3 started \(pid (\d+)\)/.exec(output)?.[1]);
    const listens = `${LOCAL.servers[2]!.address}:${LOCAL.monitoringPort}`;
    expect(readFileSync(`/proc/${mp3}/cmdline`, 'utf8').split('\0')).toContain(listens);
    process.kill(mp3, 'SIGKILL');
    await waitFor('mp3 reported stopped', async () => output.includes('mp3 stopped (SIGKILL)'));
    await waitFor('the outage seen by the OAM', async () => {
      const ts = (await get('/api/target-sets')) as {
        items: { activeBindings: { available: number } | null }[];
      };
      return ts.items.every((t) => t.activeBindings?.available === 2);
    });
    expect(output).not.toContain('stopping everything');
    expect(stack.exitCode).toBeNull();
    stack.stdin!.write('start mp3\n');
    await waitFor('mp3 back', async () => {
      const ts = (await get('/api/target-sets')) as {
        items: { activeBindings: { available: number } | null }[];
      };
      return ts.items.every((t) => t.activeBindings?.available === 3);
    });

    stack.kill('SIGINT');
    const exit = await new Promise((resolve) => stack!.once('exit', resolve));
    expect(exit).toBe(0);
    // Nothing is left listening on the sample addresses.
    for (const address of [
      `${LOCAL.tsas.leastLoad}:${LOCAL.diameterPort}`,
      `${LOCAL.agents[0].address}:8701`,
      `127.0.0.1:${PORT}`,
    ]) {
      const [host, p] = address.split(':');
      const refused = await fetch(`http://${host}:${p}/`).then(
        () => false,
        () => true,
      );
      expect(refused, address).toBe(true);
    }
    stack = null;
  });
});
