import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, startApp, waitFor, type TestApp } from './helpers.ts';

/** HTTPS with a throwaway CA made at test time: the OAM serves TLS, and verifies the agents'. */
const dir = mkdtempSync(join(tmpdir(), 'ipfe-tls-'));
const TOKEN = 'tls-test-token-0123456789abcdefghijklmnopq';
const AGENT = '127.42.0.11';
const agentBin = new URL('../../agent/bin/ipfe-agent.js', import.meta.url).pathname;
const serverTs = new URL('../src/server.ts', import.meta.url).pathname;
const children: ChildProcess[] = [];
const apps: TestApp[] = [];
const file = (name: string) => join(dir, name);

function openssl(args: string[]) {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA, and a certificate signed by it for an IP address. */
function makeCa(name: string) {
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
  ]);
}
function makeCert(ca: string, name: string, ip: string) {
  writeFileSync(file(`${name}.ext`), `subjectAltName=IP:${ip}\n`);
  openssl([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${name}`,
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.pem`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    '1',
    '-extfile',
    `${name}.ext`,
  ]);
}

beforeAll(async () => {
  makeCa('ca');
  makeCa('other-ca');
  makeCert('ca', 'agent', AGENT);
  makeCert('ca', 'oam', '127.0.0.1');
  children.push(
    spawn(
      process.execPath,
      [
        agentBin,
        '--slot',
        'A1',
        '--control',
        `${AGENT}:8701`,
        '--state-dir',
        file('agent-state'),
        '--tls-cert',
        file('agent.pem'),
        '--tls-key',
        file('agent.key'),
      ],
      { env: { ...process.env, IPFE_AGENT_TOKEN: TOKEN, LOG_LEVEL: 'silent' }, stdio: 'ignore' },
    ),
  );
}, 30_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const app of apps) await app.close();
  rmSync(dir, { recursive: true, force: true });
});

async function oamWithAgentCa(ca: string | undefined) {
  const t = await startApp({
    agentToken: TOKEN,
    agentSync: { enabled: true, pollIntervalMs: 200, backoffMaxMs: 300, agentCa: ca },
  });
  apps.push(t);
  await t.app.ready();
  const admin = await login(t.app);
  await admin.edit('/api/options', { ipfe: { A1: { address: AGENT } } });
  return admin;
}

const stateOf = async (admin: Awaited<ReturnType<typeof oamWithAgentCa>>) =>
  (
    (await admin.get('/api/ipfe')).json() as {
      items: { slot: string; state: string; lastError: string | null }[];
    }
  ).items.find((i) => i.slot === 'A1')!;

describe('TLS between the OAM and the agents', () => {
  it('pushes over HTTPS to an agent whose certificate the given CA signed', async () => {
    const admin = await oamWithAgentCa(readFileSync(file('ca.pem'), 'utf8'));
    await waitFor('A1 synced over HTTPS', async () => (await stateOf(admin)).state === 'synced');
  });

  it('refuses an agent certificate from another CA', async () => {
    const admin = await oamWithAgentCa(readFileSync(file('other-ca.pem'), 'utf8'));
    await waitFor('A1 unreachable', async () => (await stateOf(admin)).state === 'unreachable');
    expect((await stateOf(admin)).lastError).toMatch(/CERT|certificate|SIGNATURE|UNABLE/i);
  });
});

describe('the OAM over HTTPS', () => {
  it('serves HTTPS with --tls-cert/--tls-key, and its session cookie is Secure', async () => {
    const port = 19500 + Math.floor(Math.random() * 400);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', serverTs, '--tls-cert', file('oam.pem'), '--tls-key', file('oam.key')],
      {
        env: {
          ...process.env,
          IPFE_DATA_DIR: file('oam-data'),
          PORT: String(port),
          IPFE_ADMIN_PASSWORD: 'tls-admin-password',
          LOG_LEVEL: 'silent',
        },
        stdio: 'ignore',
      },
    );
    children.push(child);
    const dispatcher = new Agent({ connect: { ca: readFileSync(file('ca.pem'), 'utf8') } });
    const url = `https://127.0.0.1:${port}`;
    await waitFor(
      'the OAM over HTTPS',
      async () => (await request(`${url}/api/health`, { dispatcher })).statusCode === 200,
    );
    const response = await request(`${url}/api/session`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'tls-admin-password' }),
    });
    expect(response.statusCode).toBe(200);
    expect(String(response.headers['set-cookie'])).toMatch(/; Secure/);
    await response.body.text();
    await dispatcher.close();
  });
});
