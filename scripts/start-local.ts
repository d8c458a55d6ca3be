import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { LOCAL, sampleConfiguration } from './local-stack.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const base = process.env.INIT_CWD ?? process.cwd();
const dataDir = resolveDir(process.env.IPFE_DATA_DIR || 'data');
const port = Number(process.env.PORT || LOCAL.oam.port);
const host = process.env.HOST || LOCAL.oam.host;
const oamUrl = `http://${host}:${port}`;
const children: { name: string; child: ChildProcess }[] = [];
let stopping = false;

function resolveDir(dir: string) {
  return isAbsolute(dir) ? dir : resolve(base, dir);
}

function log(line: string) {
  console.log(`[local] ${line}`);
}

/** Runs a part of the system as a Node child, its output prefixed with its name. */
function run(name: string, nodeArgs: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => console.log(`[${name}] ${line}`));
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      log(`${name} stopped (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push({ name, child });
  return child;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the GUI when it is missing or older than its sources. */
function ensureGui() {
  if (process.env.IPFE_SKIP_WEB_BUILD === '1') return;
  const web = join(root, 'apps/web');
  const built = join(web, 'dist/index.html');
  const stale = !existsSync(built) || statSync(built).mtimeMs < newestMtime(join(web, 'src'));
  if (!stale) return;
  log('building the GUI (apps/web)…');
  const result = spawnSync('npm', ['run', 'build', '-w', '@ipfe/web'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('the GUI build failed');
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function adminPassword(): string | null {
  if (process.env.IPFE_ADMIN_PASSWORD) return process.env.IPFE_ADMIN_PASSWORD;
  const file = join(dataDir, 'initial-admin-password');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}

/** On the first run (no revision yet) the sample configuration is committed through the API. */
async function seed(password: string | null) {
  if (!password)
    return log('cannot log in as admin to seed (no initial-admin-password); skipping the sample');
  const login = await fetch(`${oamUrl}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  if (!login.ok)
    return log(`admin login failed (${login.status}); skipping the sample configuration`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { csrfToken } = (await login.json()) as { csrfToken: string };
  const headers = { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' };
  const revisions = (await (
    await fetch(`${oamUrl}/api/revisions?limit=1`, { headers })
  ).json()) as { total: number };
  if (revisions.total > 0) return;
  log('first run: committing the sample configuration');
  for (const step of sampleConfiguration()) {
    const extra: Record<string, string> = {};
    if (step.method === 'PUT')
      extra['if-match'] =
        (await fetch(`${oamUrl}${step.url}`, { headers })).headers.get('etag') ?? '';
    const response = await fetch(`${oamUrl}${step.url}`, {
      method: step.method,
      headers: { ...headers, ...extra },
      body: JSON.stringify(step.body),
    });
    if (!response.ok)
      throw new Error(`seeding ${step.url} failed: ${response.status} ${await response.text()}`);
  }
}

async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  for (const { child } of [...children].reverse()) child.kill('SIGTERM');
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise<void>((resolvePromise) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolvePromise();
          const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolvePromise();
          });
        }),
    ),
  );
  process.exit(code);
}

async function main() {
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  ensureGui();
  // `--import tsx` runs the OAM in the child itself (no tsx wrapper process to orphan it).
  run('oam', ['--import', 'tsx', join(root, 'apps/api/src/server.ts')], {
    IPFE_DATA_DIR: dataDir,
    HOST: host,
    PORT: String(port),
  });
  await waitFor('the OAM', async () => (await fetch(`${oamUrl}/api/health`)).ok);
  await seed(adminPassword());

  const tokenFile = join(dataDir, 'agent-token');
  for (const server of LOCAL.servers) {
    run(server.name, [
      join(root, 'packages/reporter/bin/ipfe-reporter.js'),
      '--listen',
      `${server.address}:${LOCAL.monitoringPort}`,
      '--mps-capacity',
      '5000',
      '--connection-capacity',
      '1000',
      '--echo',
      String(LOCAL.diameterPort),
    ]);
  }
  for (const agent of LOCAL.agents) {
    const stateDir = join(dataDir, 'agents', agent.slot);
    const args = [
      '--slot',
      agent.slot,
      '--control',
      `${agent.address}:${agent.port}`,
      '--state-dir',
      stateDir,
    ];
    if (!process.env.IPFE_AGENT_TOKEN) args.push('--token-file', tokenFile);
    run(`agent-${agent.slot}`, [join(root, 'apps/agent/bin/ipfe-agent.js'), ...args], {
      LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
    });
  }

  const password = adminPassword();
  console.log('');
  log(`IPFE OAM is up: ${oamUrl}`);
  log(`log in as admin with ${password ? `password ${password}` : 'the password you set'}`);
  log(
    `agents A1 ${LOCAL.agents[0].address}, A2 ${LOCAL.agents[1].address}; servers ${LOCAL.servers.map((s) => s.address).join(', ')}`,
  );
  log(
    `sample TSAs: ${LOCAL.tsas.leastLoad}:${LOCAL.diameterPort} (Least Load), ${LOCAL.tsas.hash}:${LOCAL.diameterPort} (Hash)`,
  );
  log('traffic: `npm run demo:traffic` in another terminal; Ctrl-C stops everything');
}

main().catch((err: unknown) => {
  console.error(`[local] failed: ${err instanceof Error ? err.message : String(err)}`);
  void stop(1);
});
