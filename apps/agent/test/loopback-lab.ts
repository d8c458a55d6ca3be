import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  configurationShape,
  type AgentStatus,
  type ConfigDocument,
  type Configuration,
} from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import pino from 'pino';
import { afterAll, expect } from 'vitest';
import { Agent } from '../src/agent.ts';
import { buildControlServer } from '../src/control-server.ts';
import { withPortSlices } from '../src/testing.ts';
import { keepOutput } from './lab.ts';
import { blockOf } from './loopback-blocks.ts';
import { startAppServer, type AppServer } from './loopback-peers.ts';

/**
 * The loopback lab: a test file's agents, application servers and clients on loopback, in the
 * /16 the file owns (loopback-blocks.ts), and what every such file sets up and removes after its
 * last test: state folders, agents (in this process or as their own processes), application
 * servers with their reporters.
 */

export const TOKEN = 'test-token-0123456789-abcdefghijklmnopqrstuvwxyz';
const CONTROL_PORT = 8701;

/** A control API client: what the OAM and an operator's curl do to an agent. */
export interface Control {
  url: string;
  push(document: unknown, token?: string): Promise<Response>;
  status(): Promise<AgentStatus>;
  /** The /metrics text. */
  metrics(): Promise<string>;
  /** /v1/health (no token); throws while nothing answers. */
  health(): Promise<{ status: string; slot: string; revision: number }>;
}

export function controlOf(host: string, port = CONTROL_PORT): Control {
  const url = `http://${host}:${port}`;
  const auth = { authorization: `Bearer ${TOKEN}` };
  return {
    url,
    push: (document, token = TOKEN) =>
      fetch(`${url}/v1/config`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: typeof document === 'string' ? document : JSON.stringify(document),
      }),
    status: async () =>
      (await (await fetch(`${url}/v1/status`, { headers: auth })).json()) as AgentStatus,
    metrics: async () => (await fetch(`${url}/metrics`, { headers: auth })).text(),
    health: async () => {
      const response = await fetch(`${url}/v1/health`);
      if (!response.ok) throw new Error(`health: ${response.status}`);
      return (await response.json()) as { status: string; slot: string; revision: number };
    },
  };
}

/** An agent in this process, its control API on a real socket. */
export interface RunningAgent extends Control {
  agent: Agent;
  dir: string;
  /** Stops it (once, however often it is called); its state folder stays. */
  stop(): Promise<void>;
}

export interface AgentOptions {
  slot?: 'A1' | 'A2';
  /** Where its control API listens: the lab's A1 unless told. */
  host?: string;
  /** Its state folder: a new one unless told (a restart passes the old one's). */
  dir?: string;
  holdOffMs?: number;
  maxConnections?: number;
  requestTimeoutMs?: number;
  /** Where the agent's log goes (trace level); silent when absent. */
  logStream?: NodeJS.WritableStream;
}

export const documentOf = (revision: number, config: Configuration): ConfigDocument =>
  buildDocument(revision, config);

/** The addresses of a lab in 127.<block>.0.0/16, and its configuration. */
function addressesOf(block: number) {
  const p = `127.${block}`;
  return {
    /** IPFE A1 and A2 (their control APIs), the TSAs of Target Sets 1 and 2. */
    a1: `${p}.0.11`,
    a2: `${p}.0.12`,
    tsa: `${p}.0.100`,
    tsa2: `${p}.0.101`,
    /** The three application servers of Target Set 1. */
    servers: [`${p}.1.1`, `${p}.1.2`, `${p}.1.3`],
    /** Client addresses. */
    client: (i: number) => `${p}.2.${i}`,
    /** Any other address of the block: `address('3.1')` is 127.<block>.3.1. */
    address: (rest: string) => `${p}.${rest}`,
    xsi: `${p}.0.0/16`,
  };
}

export type LoopbackLab = ReturnType<typeof loopbackLab>;

/**
 * The lab of the test file at `testFile` (its `import.meta.url`). Call it once, at the file's top
 * level: what it starts is stopped and removed after the file's last test.
 */
export function loopbackLab(testFile: string) {
  const testDir = dirname(fileURLToPath(import.meta.url));
  const block = blockOf(relative(testDir, fileURLToPath(testFile)));
  const at = addressesOf(block);
  const cleanups: (() => unknown)[] = [];
  afterAll(async () => {
    for (const undo of cleanups.splice(0).reverse()) await undo();
  });
  let revision = 0;

  /**
   * IPFEs A1 and A2 (a fast mate heartbeat), one XSI network (the block), three application
   * servers and Target Set 1 (Hash, on the TSA, A1 active) over them; changed by `change`.
   */
  function config(change: (c: Configuration) => void = () => {}): Configuration {
    const parsed = configurationShape.parse({
      options: {
        ipfe: { A1: { address: at.a1 }, A2: { address: at.a2 } },
        mateHeartbeatPort: 19041,
        mateIntervalMs: 50,
        mateTimeoutMs: 600,
        connectTimeoutS: 2,
        connectTryIntervalS: 1,
      },
      xsiNetworks: [{ name: 'xsi', cidr: at.xsi }],
      appServers: withPortSlices(
        at.servers.map((address, i) => ({ name: `mp${i + 1}`, addresses: [address] })),
      ),
      targetSets: [
        {
          number: 1,
          family: 'ipv4',
          algorithm: 'hash',
          primary: { address: at.tsa, activeIpfe: 'A1' },
          servers: at.servers.map((address) => ({ address })),
        },
      ],
    });
    change(parsed);
    return parsed;
  }

  /** A new state folder, removed at the end. */
  function stateDir(): string {
    const dir = mkdtempSync(join(tmpdir(), `ipfe-lab${block}-`));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  return {
    block,
    ...at,
    config,

    /** The lab's configuration, changed by `change`, as the next revision (1, 2, …). */
    document: (change?: (c: Configuration) => void) => documentOf(++revision, config(change)),

    /** Pushes the next revision to an agent; it must be applied (200). */
    async configure(agent: Control, change?: (c: Configuration) => void) {
      const document = documentOf(++revision, config(change));
      expect((await agent.push(document)).status).toBe(200);
      return document;
    },

    stateDir,

    /** An agent in this process, its control API at `host` (the lab's A1 unless told). */
    async startAgent(options: AgentOptions = {}): Promise<RunningAgent> {
      const host = options.host ?? at.a1;
      const dir = options.dir ?? stateDir();
      const agent = new Agent({
        slot: options.slot ?? 'A1',
        stateDir: dir,
        token: TOKEN,
        relayPort: 9676,
        controlHost: host,
        logger: options.logStream
          ? pino({ level: 'trace' }, options.logStream)
          : pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
        holdOffMs: options.holdOffMs,
        drainTimeoutMs: 500,
        maxConnections: options.maxConnections,
      });
      await agent.start();
      const server = buildControlServer(agent, TOKEN, {
        requestTimeoutMs: options.requestTimeoutMs,
      });
      await server.listen({ host, port: CONTROL_PORT });
      let stopped: Promise<void> | undefined;
      const stop = () => (stopped ??= Promise.all([server.close(), agent.stop()]).then(() => {}));
      cleanups.push(stop);
      return { ...controlOf(host), agent, dir, stop };
    },

    /**
     * The agent as its own process (`ipfe-agent`), for kill and restart tests; SIGKILLed at the
     * end if still running. DEBUG_LOG_DIR keeps its log.
     */
    spawnAgent(options: {
      slot: string;
      host: string;
      dir: string;
      env?: Record<string, string>;
      /** More flags, e.g. --disk-full-pct 1. */
      args?: readonly string[];
    }): ChildProcess {
      const bin = new URL('../bin/ipfe-agent.js', import.meta.url).pathname;
      const child = spawn(
        process.execPath,
        [
          bin,
          ...['--slot', options.slot, '--control', `${options.host}:${CONTROL_PORT}`],
          ...['--state-dir', options.dir],
          ...(options.args ?? []),
        ],
        {
          env: { ...process.env, IPFE_AGENT_TOKEN: TOKEN, LOG_LEVEL: 'warn', ...options.env },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      keepOutput(child, `agent-${options.slot}`);
      cleanups.push(async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      });
      return child;
    },

    /** Application servers (the lab's three unless told), closed at the end. */
    async startAppServers(
      mode: 'name' | 'hold' = 'name',
      addresses: readonly string[] = at.servers,
    ): Promise<AppServer[]> {
      const servers = await Promise.all(addresses.map((address) => startAppServer(address, mode)));
      for (const server of servers) cleanups.push(() => server.close());
      return servers;
    },

    /** Something else to undo at the end (after what was started later). */
    onCleanup(undo: () => unknown) {
      cleanups.push(undo);
    },
  };
}
