import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL } from '../scripts/local-stack.ts';

/*
 * The OAM container's command, run here as a process on loopback. It seeds the loopback sample
 * (IPFE_SEED=local): the compose sample names addresses that exist only on the compose networks,
 * and the OAM would push to them. compose.test.ts checks the compose sample through the API.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = join(root, 'deploy/oam-entry.ts');
const dir = mkdtempSync(join(tmpdir(), 'ipfe-oam-entry-'));
const token = 'compose-test-token-0123456789abcdefghijklmnopqrstuvwxyz';
const password = 'entry-admin-1';
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const waitFor = async (text: string) => {
    const deadline = Date.now() + 30_000;
    while (!output.includes(text)) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`no "${text}" in:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { child, exited, waitFor, output: () => output };
}

describe('deploy/oam-entry.ts (the OAM container command)', () => {
  it('takes the push token from IPFE_AGENT_TOKEN_FILE and commits the sample on the first start only', async () => {
    const tokenFile = join(dir, 'agent-token');
    writeFileSync(tokenFile, `${token}\n`);
    const dataDir = join(dir, 'data');
    const port = await freePort();
    const env = {
      PORT: String(port),
      IPFE_DATA_DIR: dataDir,
      IPFE_AGENT_TOKEN_FILE: tokenFile,
      IPFE_ADMIN_PASSWORD: password,
      IPFE_SEED: 'local',
    };

    const first = start(env);
    await first.waitFor('the local sample configuration is committed');
    const oam = `http://127.0.0.1:${port}`;
    const login = await fetch(`${oam}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const get = async (url: string) =>
      (await fetch(`${oam}${url}`, { headers: { cookie } })).json() as Promise<{
        total: number;
        items: { number: number; primary: { address: string } }[];
      }>;
    const targetSets = await get('/api/target-sets');
    expect(targetSets.items.map((t) => t.primary.address)).toEqual(
      LOCAL.targetSets.map((t) => t.address),
    );
    const revisions = (await get('/api/revisions?limit=1')).total;
    // The token came from the file: the OAM generated none of its own.
    expect(existsSync(join(dataDir, 'agent-token'))).toBe(false);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = start(env);
    await second.waitFor('already has a configuration');
    expect(second.output()).not.toContain('first run');
    expect((await get('/api/revisions?limit=1')).total).toBe(revisions);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('refuses to seed over TLS: the sample is committed over plain HTTP', async () => {
    const tls = start({
      PORT: String(await freePort()),
      IPFE_DATA_DIR: join(dir, 'never'),
      IPFE_SEED: 'compose',
      IPFE_TLS_CERT: join(dir, 'cert.pem'),
      IPFE_TLS_KEY: join(dir, 'key.pem'),
    });
    expect(await tls.exited).toBe(2);
    expect(tls.output().trim()).toBe(
      'ipfe-oam: IPFE_SEED: the sample is committed over plain HTTP; seed once without TLS',
    );
  });

  it('refuses an unreadable token file, both token variables and an unknown sample, one line each', async () => {
    const bad = start({
      PORT: String(await freePort()),
      IPFE_DATA_DIR: join(dir, 'never'),
      IPFE_AGENT_TOKEN_FILE: join(dir, 'missing-token'),
      IPFE_AGENT_TOKEN: token,
      IPFE_SEED: 'production',
    });
    expect(await bad.exited).toBe(2);
    expect(bad.output().trim().split('\n').sort()).toEqual([
      'ipfe-oam: IPFE_AGENT_TOKEN_FILE: cannot be read (ENOENT)',
      'ipfe-oam: IPFE_AGENT_TOKEN_FILE: set it or IPFE_AGENT_TOKEN, not both',
      'ipfe-oam: IPFE_SEED: must be one of none, local, compose',
    ]);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });
});
