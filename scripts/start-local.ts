import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { LOCAL, sampleConfiguration } from './local-stack.ts';
import { adminPassword, seedOnFirstRun, waitFor } from './seed.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const base = process.env.INIT_CWD ?? process.cwd();
const dataDir = resolveDir(process.env.IPFE_DATA_DIR || 'data');
const port = Number(process.env.PORT || LOCAL.oam.port);
const host = process.env.HOST || LOCAL.oam.host;
const oamUrl = `http://${host}:${port}`;
/** The running parts; the stack ends when a critical one (the OAM, an agent) exits. */
const children: { name: string; child: ChildProcess; critical: boolean }[] = [];
const serverArgs = new Map<string, string[]>();
let stopping = false;

function resolveDir(dir: string) {
  return isAbsolute(dir) ? dir : resolve(base, dir);
}

function log(line: string) {
  console.log(`[local] ${line}`);
}

/**
 * Runs a part of the system as a Node child, its output prefixed with its name. An application
 * server may stop (operators stop one to see an outage): that is reported and the rest runs on.
 */
function run(
  name: string,
  nodeArgs: string[],
  { env = {}, critical = true }: { env?: Record<string, string>; critical?: boolean } = {},
) {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => console.log(`[${name}] ${line}`));
  }
  const entry = { name, child, critical };
  child.on('exit', (code, signal) => {
    children.splice(children.indexOf(entry), 1);
    if (stopping) return;
    if (critical) {
      log(`${name} stopped (${signal ?? code}); stopping everything`);
      void stop(1);
    } else {
      log(
        `${name} stopped (${signal ?? code}); the rest keeps running. Type "start ${name}" to start it again`,
      );
    }
  });
  children.push(entry);
  return child;
}

function runServer(name: string) {
  const child = run(name, serverArgs.get(name)!, { critical: false });
  log(`${name} started (pid ${child.pid})`);
}

/** Lines typed into `npm start`: start or stop a sample application server. */
function obey(line: string) {
  const [verb, name = ''] = line.trim().split(/\s+/);
  if (!verb) return;
  const running = children.find((c) => c.name === name);
  if ((verb === 'start' || verb === 'stop') && !serverArgs.has(name)) {
    log(`no application server "${name}" here (${[...serverArgs.keys()].join(', ')})`);
  } else if (verb === 'start') {
    if (running) log(`${name} is running (pid ${running.child.pid})`);
    else runServer(name);
  } else if (verb === 'stop') {
    if (running) running.child.kill('SIGTERM');
    else log(`${name} is not running`);
  } else {
    log('commands: "stop NAME", "start NAME" (an application server); Ctrl-C stops everything');
  }
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

async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  for (const { child } of [...children].reverse()) {
    child.kill('SIGTERM');
    child.kill('SIGCONT'); // a part stopped with kill -STOP (an outage tried by hand) must see it
  }
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
    env: {
      IPFE_DATA_DIR: dataDir,
      HOST: host,
      PORT: String(port),
      // The OAM writes into a pipe here: it shows readable lines when this terminal would.
      LOG_FORMAT: process.env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json'),
    },
  });
  await waitFor('the OAM', async () => (await fetch(`${oamUrl}/api/health`)).ok);
  await seedOnFirstRun(oamUrl, adminPassword(dataDir), sampleConfiguration(), log);

  const tokenFile = join(dataDir, 'agent-token');
  for (const server of LOCAL.servers) {
    serverArgs.set(server.name, [
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
    runServer(server.name);
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
      env: { LOG_LEVEL: process.env.LOG_LEVEL || 'warn' },
    });
  }

  const password = adminPassword(dataDir);
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
  log('an outage: type "stop mp3" here (or kill -STOP its pid), then "start mp3"');
  createInterface({ input: process.stdin }).on('line', obey);
}

main().catch((err: unknown) => {
  console.error(`[local] failed: ${err instanceof Error ? err.message : String(err)}`);
  void stop(1);
});
