import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configurationShape, type ConfigDocument, type Configuration } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { createReporter, type Reporter } from '@ipfe/reporter';
import pino from 'pino';
import { Agent } from '../src/agent.ts';
import { buildControlServer } from '../src/control-server.ts';

export const TOKEN = 'test-token-0123456789-abcdefghijklmnopqrstuvwxyz';
export const PORT = 3868;

/**
 * Each test file owns one loopback /16 (127.<net>.0.0/16): IPFEs at .0.11/.0.12, the TSA at
 * .0.100, application servers at .1.1–.1.3, clients from .2.x.
 */
export function addressesOf(net16: number) {
  const p = `127.${net16}`;
  return {
    a1: `${p}.0.11`,
    a2: `${p}.0.12`,
    tsa: `${p}.0.100`,
    tsa2: `${p}.0.101`,
    servers: [`${p}.1.1`, `${p}.1.2`, `${p}.1.3`],
    client: (i: number) => `${p}.2.${i}`,
    xsi: `${p}.0.0/16`,
  };
}

export function testConfig(
  net16: number,
  change: (c: Configuration) => void = () => {},
): Configuration {
  const a = addressesOf(net16);
  const config = configurationShape.parse({
    options: {
      ipfe: { A1: { address: a.a1 }, A2: { address: a.a2 } },
      mateHeartbeatPort: 19041,
      mateIntervalMs: 50,
      mateTimeoutMs: 600,
      connectTimeoutS: 2,
      connectTryIntervalS: 1,
    },
    xsiNetworks: [{ name: 'xsi', cidr: a.xsi }],
    appServers: a.servers.map((address, i) => ({
      name: `mp${i + 1}`,
      addresses: [address],
      initiatorPortRange: { start: 16384 + i * 512, end: 16384 + i * 512 + 511 },
    })),
    targetSets: [
      {
        number: 1,
        family: 'ipv4',
        algorithm: 'hash',
        primary: { address: a.tsa, activeIpfe: 'A1' },
        servers: a.servers.map((address) => ({ address })),
      },
    ],
  });
  change(config);
  return config;
}

export const documentOf = (revision: number, config: Configuration): ConfigDocument =>
  buildDocument(revision, config);

export interface RunningAgent {
  agent: Agent;
  url: string;
  dir: string;
  push(document: unknown, token?: string): Promise<Response>;
  status(): Promise<ReturnType<Agent['status']>>;
  stop(): Promise<void>;
}

const quiet = () => pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A real agent in this process, its control API on a real socket. */
export async function startAgent(options: {
  slot?: 'A1' | 'A2';
  host: string;
  dir?: string;
  controlPort?: number;
  holdOffMs?: number;
  maxConnections?: number;
  requestTimeoutMs?: number;
  /** Where the agent's log goes (trace level); silent when absent. */
  logStream?: NodeJS.WritableStream;
}): Promise<RunningAgent> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'ipfe-agent-'));
  const agent = new Agent({
    slot: options.slot ?? 'A1',
    stateDir: dir,
    token: TOKEN,
    relayPort: 9676,
    controlHost: options.host,
    logger: options.logStream ? pino({ level: 'trace' }, options.logStream) : quiet(),
    holdOffMs: options.holdOffMs,
    drainTimeoutMs: 500,
    maxConnections: options.maxConnections,
  });
  await agent.start();
  const control = buildControlServer(agent, TOKEN, { requestTimeoutMs: options.requestTimeoutMs });
  await control.listen({ host: options.host, port: options.controlPort ?? 8701 });
  const url = `http://${options.host}:${options.controlPort ?? 8701}`;
  return {
    agent,
    url,
    dir,
    push: (document, token = TOKEN) =>
      fetch(`${url}/v1/config`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: typeof document === 'string' ? document : JSON.stringify(document),
      }),
    status: async () => {
      const response = await fetch(`${url}/v1/status`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      return (await response.json()) as ReturnType<Agent['status']>;
    },
    async stop() {
      await Promise.all([control.close(), agent.stop()]);
    },
  };
}

export function removeDir(dir: string) {
  rmSync(dir, { recursive: true, force: true });
}

/** An application server: a heartbeat reporter, and a service on PORT that names itself then closes. */
export interface AppServer {
  address: string;
  reporter: Reporter;
  accepted: number;
  open: Set<net.Socket>;
  close(): Promise<void>;
}

export async function startAppServer(
  address: string,
  mode: 'name' | 'hold' = 'name',
): Promise<AppServer> {
  const reporter = await createReporter({
    listen: { host: address, port: 9675 },
    mpsCapacity: 1000,
    connectionCapacity: 1000,
    intervalMs: 200,
  });
  const open = new Set<net.Socket>();
  const server: AppServer = {
    address,
    reporter,
    accepted: 0,
    open,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => service.close(() => resolve()));
      await reporter.close();
    },
  };
  const service = net.createServer((socket) => {
    server.accepted++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    if (mode === 'name') {
      socket.end(address);
    } else {
      socket.write(`${address}\n`);
      socket.pipe(socket);
    }
  });
  await new Promise<void>((resolve, reject) => {
    service.once('error', reject);
    service.listen({ host: address, port: PORT }, () => resolve());
  });
  return server;
}

/** One connection to the TSA: the name of the server that answered, or the error. */
export function ask(tsa: string, from?: { address: string; port?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({
      host: tsa,
      port: PORT,
      localAddress: from?.address,
      localPort: from?.port,
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (answer += d));
    // Resolved at 'close', not 'end': the source port is free again only then.
    socket.on('close', (hadError) => (hadError ? undefined : resolve(answer)));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
  });
}

/** A long-lived connection to the TSA that echoes after the server's name line. */
export async function hold(
  tsa: string,
  from?: string,
): Promise<{ socket: net.Socket; server: string; alive(): Promise<boolean> }> {
  const socket = net.connect({ host: tsa, port: PORT, localAddress: from });
  socket.setEncoding('utf8');
  const server = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (d: string) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl >= 0) {
        socket.off('data', onData);
        resolve(text.slice(0, nl));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed before the server answered')));
  });
  return {
    socket,
    server,
    alive: () =>
      new Promise((resolve) => {
        if (socket.destroyed) return resolve(false);
        const probe = `ping-${Math.random()}`;
        const timer = setTimeout(() => resolve(false), 2000);
        const onData = (d: string) => {
          if (d.includes(probe)) {
            clearTimeout(timer);
            socket.off('data', onData);
            resolve(true);
          }
        };
        socket.on('data', onData);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve(false);
        });
        socket.write(probe);
      }),
  };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T> | T,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The agent as its own process (`ipfe-agent`), for kill and restart tests. */
export function spawnAgent(args: {
  slot: string;
  host: string;
  dir: string;
  env?: Record<string, string>;
}): ChildProcess {
  const bin = new URL('../bin/ipfe-agent.js', import.meta.url).pathname;
  return spawn(
    process.execPath,
    [bin, '--slot', args.slot, '--control', `${args.host}:8701`, '--state-dir', args.dir],
    {
      env: { ...process.env, IPFE_AGENT_TOKEN: TOKEN, LOG_LEVEL: 'warn', ...args.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
}
