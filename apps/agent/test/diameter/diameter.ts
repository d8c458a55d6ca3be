import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { formatHostPort } from '@ipfe/schema';
import { repoRoot } from '../netns-topology.ts';

/**
 * The Diameter peers of diameter-server.ts and diameter-client.ts as child processes, here or in a
 * network namespace (`prefix: ['ip', 'netns', 'exec', NS]`), with their output as lines to wait for.
 */

export const DIAMETER_PORT = 3868;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LineProcess {
  readonly child: ChildProcess;
  /** What it is, for messages: e.g. "diameter client → 127.0.0.100:3868". */
  readonly label: string;
  /** Every line it printed on stdout so far, with Date.now() when it arrived. */
  readonly lines: { text: string; at: number }[];
  /** Settles when it has exited; `exit` is then set too. */
  readonly exited: Promise<Exit>;
  readonly exit: Exit | null;
  /**
   * The first line at index `from` or later that matches: waits up to timeoutMs, and fails with
   * what it waited for, what the process printed and how it exited (at once if it exits first).
   */
  line(pattern: RegExp, timeoutMs?: number, from?: number): Promise<RegExpExecArray>;
  count(pattern: RegExp): number;
  /** Writes one line to its stdin. */
  send(line: string): void;
  /** A signal to its whole process group (a stop, a continue, a kill). */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL to its process group, then waits for the exit. */
  stop(): Promise<void>;
}

const running = new Set<LineProcess>();

/** Stops every peer this module started that is still running. */
export async function stopDiameterPeers(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop()));
}

function spawnLines(label: string, script: string, args: string[], prefix: string[]): LineProcess {
  const command = [
    ...prefix,
    process.execPath,
    '--import',
    'tsx',
    `${repoRoot}apps/agent/test/diameter/${script}`,
    ...args,
  ];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: { text: string; at: number }[] = [];
  let stderr = '';
  let exit: Exit | null = null;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  createInterface({ input: child.stdout! }).on('line', (text) => {
    lines.push({ text, at: Date.now() });
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  child.stdin!.on('error', () => {}); // writes after its exit
  const exited = new Promise<Exit>((resolve) => {
    child.once('error', (err) => {
      stderr += `\nspawn failed: ${err.message}`;
      exit = { code: null, signal: null };
      running.delete(proc);
      resolve(exit);
      notify();
    });
    // 'close', not 'exit': every line it printed has been read by then.
    child.once('close', (code, signal) => {
      exit = { code, signal };
      running.delete(proc);
      resolve(exit);
      notify();
    });
  });

  const account = () => {
    const shown = lines.slice(-15).map((l) => `    ${l.text}`);
    const exitText = exit
      ? `it exited (${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})`
      : 'it is still running';
    return [
      `${exitText}; it printed ${lines.length} line(s)${lines.length > 15 ? ', the last 15' : ''}:`,
      ...(shown.length ? shown : ['    (nothing)']),
      ...(stderr.trim()
        ? [
            '  stderr:',
            ...stderr
              .trim()
              .split('\n')
              .map((l) => `    ${l}`),
          ]
        : []),
    ].join('\n');
  };

  const proc: LineProcess = {
    child,
    label,
    lines,
    exited,
    get exit() {
      return exit;
    },
    line(pattern, timeoutMs = 10_000, from = 0) {
      return new Promise((resolve, reject) => {
        let index = from;
        const check = () => {
          for (; index < lines.length; index++) {
            const match = pattern.exec(lines[index]!.text);
            if (match) return done(() => resolve(match));
          }
          if (exit)
            done(() => reject(new Error(`${label}: no line matching ${pattern}; ${account()}`)));
        };
        const timer = setTimeout(
          () =>
            done(() =>
              reject(
                new Error(
                  `${label}: no line matching ${pattern} within ${timeoutMs} ms; ${account()}`,
                ),
              ),
            ),
          timeoutMs,
        );
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    count: (pattern) => lines.filter((l) => pattern.test(l.text)).length,
    send(line) {
      if (!exit) child.stdin!.write(`${line}\n`);
    },
    signal(signal) {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // gone already
      }
    },
    async stop() {
      if (!exit) proc.signal('SIGKILL');
      await exited;
    },
  };
  running.add(proc);
  return proc;
}

/** Counters as a `stats a=1 b=2` line gives them. */
async function stats(proc: LineProcess, timeoutMs: number): Promise<Record<string, number>> {
  const from = proc.lines.length;
  proc.send('stats');
  const match = await proc.line(/^stats (.*)$/, timeoutMs, from);
  return Object.fromEntries(
    match[1]!.split(' ').map((pair) => {
      const [key, value] = pair.split('=');
      return [key!, Number(value)];
    }),
  );
}

export interface DiameterServer extends LineProcess {
  readonly name: string;
  /** Each peer that connected, its address and port as the server saw them. */
  peers(): { address: string; port: number }[];
  stats(timeoutMs?: number): Promise<{ peers: number; cer: number; dwr: number; dpr: number }>;
}

export interface ServerOptions {
  host: string;
  port?: number;
  /** Its Origin-Host. */
  name: string;
  realm?: string;
  /** What to run it under, e.g. ['ip', 'netns', 'exec', 'dm-s1']; nothing: here. */
  prefix?: string[];
  /** How long to wait for it to listen. */
  timeoutMs?: number;
}

/** A Diameter server, once it listens. */
export async function startDiameterServer(options: ServerOptions): Promise<DiameterServer> {
  const port = options.port ?? DIAMETER_PORT;
  const proc = spawnLines(
    `diameter server ${options.name} on ${formatHostPort(options.host, port)}`,
    'diameter-server.ts',
    [
      options.host,
      String(port),
      options.name,
      ...(options.realm ? ['--realm', options.realm] : []),
    ],
    options.prefix ?? [],
  );
  const server: DiameterServer = Object.assign(proc, {
    name: options.name,
    peers: () =>
      proc.lines.flatMap((l) => {
        const m = /^peer (\S+) (\d+)$/.exec(l.text);
        return m ? [{ address: m[1]!, port: Number(m[2]) }] : [];
      }),
    stats: (timeoutMs = 5000) => stats(proc, timeoutMs) as ReturnType<DiameterServer['stats']>,
  });
  try {
    await proc.line(/^listening /, options.timeoutMs ?? 15_000);
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return server;
}

export interface Capabilities {
  /** The connection's own end, as the client's socket has it. */
  local: { address: string; port: number };
  /** The CEA's Origin-Host: which server answered. */
  originHost: string;
  /** The CEA's Host-IP-Address. */
  hostIpAddress: string;
}

export interface DiameterClient extends LineProcess {
  /** Waits for the connection and the CEA (2001); fails if it was refused or lost. */
  capabilities(timeoutMs?: number): Promise<Capabilities>;
  /** DWAs received so far. */
  dwas(): number;
  /** Waits until `count` DWAs have been received in all. */
  dwa(count: number, timeoutMs?: number): Promise<void>;
  /** Waits for its `lost …` line and its exit; the reason. */
  lost(timeoutMs?: number): Promise<string>;
  stats(timeoutMs?: number): Promise<{ cea: number; dwr: number; dwa: number }>;
  /** DPR, DPA, exit 0. */
  disconnect(timeoutMs?: number): Promise<void>;
}

export interface ClientOptions {
  /** Where it connects: a TSA, or a server. */
  host: string;
  port?: number;
  localAddress?: string;
  localPort?: number;
  /** Between DWRs (default 1000); an answer more than 3 intervals late is a loss. */
  intervalMs?: number;
  originHost?: string;
  realm?: string;
  /** What to run it under, e.g. ['ip', 'netns', 'exec', 'dm-client']; nothing: here. */
  prefix?: string[];
}

/** A Diameter client, started at once: await `capabilities()` for its CEA. */
export function spawnDiameterClient(options: ClientOptions): DiameterClient {
  const port = options.port ?? DIAMETER_PORT;
  const flag = (name: string, value: string | number | undefined) =>
    value === undefined ? [] : [`--${name}`, String(value)];
  const proc = spawnLines(
    `diameter client → ${formatHostPort(options.host, port)}`,
    'diameter-client.ts',
    [
      options.host,
      String(port),
      ...flag('local-address', options.localAddress),
      ...flag('local-port', options.localPort),
      ...flag('interval-ms', options.intervalMs),
      ...flag('origin-host', options.originHost),
      ...flag('realm', options.realm),
    ],
    options.prefix ?? [],
  );
  const dwas = () => proc.count(/^dwa /);
  return Object.assign(proc, {
    async capabilities(timeoutMs = 10_000) {
      const connected = await proc.line(
        /^(?:connected (\S+) (\d+)|lost .*|refused .*)$/,
        timeoutMs,
      );
      if (!connected[1]) throw new Error(`${proc.label}: ${connected[0]} before connecting`);
      const cea = await proc.line(/^(?:cea (\S+) (\S+)|lost .*|refused .*)$/, timeoutMs);
      if (!cea[1]) throw new Error(`${proc.label}: ${cea[0]} instead of a CEA`);
      return {
        local: { address: connected[1], port: Number(connected[2]) },
        originHost: cea[1],
        hostIpAddress: cea[2]!,
      };
    },
    dwas,
    async dwa(count: number, timeoutMs = count * (options.intervalMs ?? 1000) + 10_000) {
      const match = await proc.line(new RegExp(`^(?:dwa (${count}) \\S+|lost .*)$`), timeoutMs);
      if (!match[1]) throw new Error(`${proc.label}: ${match[0]} after ${dwas()} DWA(s)`);
    },
    async lost(timeoutMs = 10_000) {
      const match = await proc.line(/^lost (.*)$/, timeoutMs);
      await proc.exited;
      return match[1]!;
    },
    stats: (timeoutMs = 5000) => stats(proc, timeoutMs) as ReturnType<DiameterClient['stats']>,
    async disconnect(timeoutMs = 10_000) {
      const from = proc.lines.length;
      proc.send('disconnect');
      const match = await proc.line(/^(?:disconnected|lost .*)$/, timeoutMs, from);
      if (match[0] !== 'disconnected') throw new Error(`${proc.label}: ${match[0]} on disconnect`);
      await proc.exited;
    },
  });
}

/** A Diameter client past its CEA. */
export async function startDiameterClient(
  options: ClientOptions,
  timeoutMs = 10_000,
): Promise<{ client: DiameterClient; capabilities: Capabilities }> {
  const client = spawnDiameterClient(options);
  try {
    return { client, capabilities: await client.capabilities(timeoutMs) };
  } catch (err) {
    await client.stop();
    throw err;
  }
}
