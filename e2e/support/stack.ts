import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, request } from '@playwright/test';
import { REPO_ROOT } from './env';

/**
 * Real processes for the full-stack flows: an OAM of their own, IPFE agents, application servers'
 * reporters, and tiny TCP services that answer with their own name. Everything started here is
 * recorded and killed by `stopAll` (each child leads its own process group), also when a test
 * fails or the worker goes away.
 */

interface Running {
  name: string;
  child: ChildProcess;
  output: string[];
}

const running = new Set<Running>();
const servers = new Set<Server>();
const sockets = new Set<Socket>();
const folders = new Set<string>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

// The last resort: whatever is still running when the worker exits goes with it.
process.once('exit', () => {
  for (const r of running) killGroup(r.child, 'SIGKILL');
});

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function start(name: string, args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
  });
  const entry: Running = { name, child, output: [] };
  const keep = (chunk: Buffer) => {
    entry.output.push(chunk.toString());
    if (entry.output.length > 200) entry.output.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  child.on('exit', () => running.delete(entry));
  running.add(entry);
  return entry;
}

/** Waits until `check` holds, or throws with what the process said. */
async function until(what: string, check: () => Promise<boolean>, entry: Running, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (entry.child.exitCode !== null || entry.child.signalCode !== null) {
      throw new Error(`${entry.name} exited while ${what}:\n${entry.output.join('')}`);
    }
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    await sleep(150);
  }
  throw new Error(`${entry.name}: ${what} took over ${ms} ms:\n${entry.output.join('')}`);
}

export function tempFolder(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.add(dir);
  return dir;
}

/** A free TCP port on `host`. */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** The OAM (API + built GUI) on `host`, its own data folder, the given agent token. */
export async function startOam(options: { host: string; token: string; adminPassword: string }) {
  const port = await freePort(options.host);
  const dataDir = tempFolder('ipfe-e2e-stack-');
  const entry = start('OAM', ['--import', 'tsx', join(REPO_ROOT, 'apps/api/src/server.ts')], {
    HOST: options.host,
    PORT: String(port),
    IPFE_DATA_DIR: dataDir,
    IPFE_ADMIN_PASSWORD: options.adminPassword,
    IPFE_AGENT_TOKEN: options.token,
    // Status twice a second: the flows wait less for what the agents did.
    IPFE_STATUS_INTERVAL_MS: '500',
  });
  const url = `http://${options.host}:${port}`;
  await until('starting', async () => (await fetch(`${url}/api/health`)).ok, entry, 30_000);
  return { url, process: entry };
}

export type Slot = 'A1' | 'A2' | 'B1' | 'B2';

/** An IPFE agent: control API on `address`:8701, state in `stateDir`, the given token. */
export async function startAgent(options: {
  slot: Slot;
  address: string;
  stateDir: string;
  token: string;
}) {
  const entry = start(
    `agent ${options.slot}`,
    [
      join(REPO_ROOT, 'apps/agent/bin/ipfe-agent.js'),
      '--slot',
      options.slot,
      '--control',
      `${options.address}:8701`,
      '--state-dir',
      options.stateDir,
    ],
    { IPFE_AGENT_TOKEN: options.token },
  );
  await until(
    'starting',
    async () => (await fetch(`http://${options.address}:8701/v1/health`)).ok,
    entry,
  );
  return entry;
}

/** An application server's reporter: heartbeats on `address`:9675 (no echo service). */
export async function startReporter(address: string) {
  const entry = start(`reporter ${address}`, [
    join(REPO_ROOT, 'packages/reporter/bin/ipfe-reporter.js'),
    '--listen',
    `${address}:9675`,
    '--mps-capacity',
    '100',
    '--connection-capacity',
    '100',
  ]);
  await until(
    'listening',
    () =>
      new Promise<boolean>((resolve) => {
        const socket = createConnection({ host: address, port: 9675 });
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      }),
    entry,
  );
  return {
    process: entry,
    /** What it reports from now on (a JSON line on its standard input). */
    report: (change: Record<string, unknown>) =>
      entry.child.stdin!.write(`${JSON.stringify(change)}\n`),
  };
}

/** A TCP service on `address`:`port` that answers every line with "<name> <line>". */
export function startNamedService(name: string, address: string, port: number) {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    let buffered = '';
    socket.on('data', (data: string) => {
      buffered += data;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        socket.write(`${name} ${buffered.slice(0, newline)}\n`);
        buffered = buffered.slice(newline + 1);
      }
    });
    socket.on('error', () => socket.destroy());
  });
  servers.add(server);
  return new Promise<Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve(server));
  });
}

/**
 * One client connection to `host`:`port`: sends a line, and returns the name of the server that
 * echoed it back (null: refused, reset, or no answer within `ms`).
 */
export function whoAnswers(host: string, port: number, ms = 3_000): Promise<string | null> {
  return new Promise((resolve) => {
    const token = `ping-${Math.random().toString(36).slice(2)}`;
    const socket = createConnection({ host, port });
    let answer = '';
    const done = (value: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(null), ms);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${token}\n`));
    socket.on('data', (data: string) => {
      answer += data;
      const match = new RegExp(`^(\\S+) ${token}\\n`).exec(answer);
      if (match) done(match[1]!);
    });
    socket.once('error', () => done(null));
    socket.once('close', () => done(null));
  });
}

/**
 * `count` client connections to `host`:`port` that stay open (each answered once first): the
 * servers' open connections. Returns who answered each; `stopAll` closes them.
 */
export async function holdConnections(host: string, port: number, count: number) {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = await new Promise<string | null>((resolve) => {
      const socket = createConnection({ host, port });
      sockets.add(socket);
      socket.setEncoding('utf8');
      socket.once('connect', () => socket.write('hold\n'));
      socket.once('data', (data: string) => resolve(/^(\S+) hold/.exec(data)?.[1] ?? null));
      socket.once('error', () => resolve(null));
      socket.once('close', () => {
        sockets.delete(socket);
        resolve(null);
      });
    });
    if (name) names.push(name);
  }
  return names;
}

/** Stops a process: SIGKILL (a crash) or SIGTERM (a clean stop), and waits for it to be gone. */
export async function stop(entry: Running, signal: NodeJS.Signals = 'SIGTERM') {
  if (entry.child.exitCode !== null || entry.child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => entry.child.once('exit', () => resolve()));
  killGroup(entry.child, signal);
  const timer = setTimeout(() => killGroup(entry.child, 'SIGKILL'), 12_000);
  await gone;
  clearTimeout(timer);
}

/** Everything this module started: processes killed, services closed, folders removed. */
export async function stopAll() {
  await Promise.all([...running].map((r) => stop(r, 'SIGKILL')));
  for (const socket of sockets) socket.destroy();
  await Promise.all(
    [...servers].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  );
  servers.clear();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  folders.clear();
}

/**
 * The admin's API session on an OAM of a flow's own: `send` writes with the CSRF token (and an
 * ETag where given) and fails the flow on a refusal, naming what was refused.
 */
export async function adminSession(url: string, password: string) {
  const http = await request.newContext({ baseURL: url });
  const login = await http.post('/api/session', { data: { username: 'admin', password } });
  expect(login.ok(), await login.text()).toBe(true);
  const { csrfToken } = (await login.json()) as { csrfToken: string };
  const send = async (method: 'post' | 'put', path: string, data: unknown, etag?: string) => {
    const response = await http[method](path, {
      data,
      headers: { 'x-csrf-token': csrfToken, ...(etag ? { 'if-match': etag } : {}) },
    });
    expect(response.ok(), `${method} ${path}: ${await response.text()}`).toBe(true);
  };
  return { http, send };
}
