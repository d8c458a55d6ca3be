import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { compiled } from '../c-build.ts';
import { ip, type Topology } from '../netns-topology.ts';

/**
 * Real SCTP endpoints for the tests and benchmarks: sctp-peer.c (usrsctp over raw IP, see the
 * comment at its top for its lines and options), compiled at test time, run in a topology's
 * namespaces.
 */

const SOURCE = new URL('./sctp-peer.c', import.meta.url).pathname;

const has = (binary: string) => spawnSync('which', [binary], { stdio: 'ignore' }).status === 0;

/** Why the peer cannot run here (not root, no libusrsctp-dev, no gcc), or null. */
export function sctpPeerUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'not root (usrsctp sends SCTP over raw IP sockets)';
  const dev =
    spawnSync('dpkg', ['-s', 'libusrsctp-dev'], { stdio: 'ignore' }).status === 0 ||
    existsSync('/usr/include/usrsctp.h');
  if (!dev) return 'libusrsctp-dev is not installed (apt-get install libusrsctp-dev)';
  if (!has('gcc')) return 'no gcc (apt-get install gcc)';
  return null;
}

/** Compiles sctp-peer.c (once per version of it). */
export const buildSctpPeer = () =>
  compiled({
    source: SOURCE,
    flags: ['-O2', '-Wall'],
    libraries: ['-lusrsctp', '-lpthread', '-ldl'],
  });

/** Anything that runs a command in one of its hosts' namespaces (Topology, the bench's net). */
export interface PeerHosts {
  run(host: string, command: string[]): ChildProcess;
}

interface Output {
  label: string;
  lines: string[];
  stderr: string;
  exit: string | null;
  changed: Set<() => void>;
}

const outputs = new WeakMap<ChildProcess, Output>();

function follow(child: ChildProcess, label: string): Output {
  const output: Output = { label, lines: [], stderr: '', exit: null, changed: new Set() };
  const notify = () => output.changed.forEach((listener) => listener());
  createInterface({ input: child.stdout! }).on('line', (line) => {
    output.lines.push(line);
    notify();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output.stderr = (output.stderr + chunk.toString()).slice(-2000);
  });
  child.on('exit', (code, signal) => {
    output.exit = signal ? `killed by ${signal}` : `exited with ${code}`;
    notify();
  });
  outputs.set(child, output);
  return output;
}

/** Every line the peer printed so far. */
export function linesOf(child: ChildProcess): readonly string[] {
  return outputs.get(child)?.lines ?? [];
}

/**
 * The first line matching `pattern`, from line number `after` on (0: every line so far), as it
 * arrives; fails with what the peer printed if none comes within `timeoutMs` or the peer exits.
 */
export function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  { timeoutMs = 10_000, after = 0 }: { timeoutMs?: number; after?: number } = {},
): Promise<RegExpMatchArray> {
  const output = outputs.get(child);
  if (!output) throw new Error('waitForLine: not a peer started by sctp-peer.ts');
  return new Promise((resolve, reject) => {
    let next = after;
    const fail = (why: string) => {
      clearTimeout(timer);
      output.changed.delete(check);
      const last = output.lines.slice(-8).join(' | ') || 'nothing';
      const stderr = output.stderr.trim();
      reject(
        new Error(
          `${output.label}: no line matching ${pattern} ${why}; last lines: ${last}` +
            (stderr ? `; stderr: ${stderr}` : ''),
        ),
      );
    };
    const check = () => {
      for (; next < output.lines.length; next++) {
        const match = (output.lines[next] ?? '').match(pattern);
        if (match) {
          clearTimeout(timer);
          output.changed.delete(check);
          resolve(match);
          return;
        }
      }
      if (output.exit) fail(`before it ${output.exit}`);
    };
    const timer = setTimeout(() => fail(`within ${timeoutMs} ms`), timeoutMs);
    output.changed.add(check);
    check();
  });
}

async function start(hosts: PeerHosts, host: string, mode: string, args: string[]) {
  const binary = await buildSctpPeer();
  const child = hosts.run(host, [binary, mode, ...args]);
  follow(child, `sctp-peer ${mode} on ${host}`);
  return child;
}

export interface SctpServer {
  child: ChildProcess;
  /** The associations it accepted so far: the peer's address and port as it sees them. */
  associations(): { address: string; port: number }[];
  /** The associations it lost so far, and why (comm-lost, shutdown, restart). */
  lost(): { address: string; port: number; why: string }[];
}

/** A server echoing every message prefixed with its name, bound to `bind` (two: multihomed). */
export async function startSctpServer(
  hosts: PeerHosts,
  host: string,
  options: { name: string; port: number; bind: string[]; quiet?: boolean },
): Promise<SctpServer> {
  const child = await start(hosts, host, 'server', [
    '--name',
    options.name,
    '--port',
    String(options.port),
    '--bind',
    options.bind.join(','),
    ...(options.quiet ? ['--quiet'] : []),
  ]);
  await waitForLine(child, /^listening /);
  const parsed = (kind: 'assoc' | 'lost') =>
    linesOf(child).flatMap((line) => {
      const [word, address = '', port = '', why = ''] = line.split(' ');
      return word === kind ? [{ address, port: Number(port), why }] : [];
    });
  return {
    child,
    associations: () => parsed('assoc').map(({ address, port }) => ({ address, port })),
    lost: () => parsed('lost'),
  };
}

export interface AssociationStats {
  index: number;
  sent: number;
  echoed: number;
  /** The name in its echoes, null before the first. */
  server: string | null;
}

export interface SctpClient {
  child: ChildProcess;
  /** The local port of each association, by index. */
  localPorts(): Map<number, number>;
  stats(): Promise<AssociationStats[]>;
  /** Shuts every association down (SHUTDOWN) and waits for the peer to exit. */
  quit(): Promise<void>;
}

/**
 * A client opening `associations` associations, each from its own local port, association i to
 * target i mod (number of targets); a target is one address, or a list for a multihomed server.
 * It sends on each every `intervalMs` and declares one lost after `timeoutMs` without an echo.
 */
export async function startSctpClient(
  hosts: PeerHosts,
  host: string,
  options: {
    connect: (string | string[])[];
    port: number;
    bind?: string[];
    associations: number;
    intervalMs?: number;
    timeoutMs?: number;
  },
): Promise<SctpClient> {
  const child = await start(hosts, host, 'client', [
    ...options.connect.flatMap((target) => ['--connect', [target].flat().join(',')]),
    '--port',
    String(options.port),
    ...(options.bind ? ['--bind', options.bind.join(',')] : []),
    '--associations',
    String(options.associations),
    ...(options.intervalMs ? ['--interval-ms', String(options.intervalMs)] : []),
    ...(options.timeoutMs ? ['--timeout-ms', String(options.timeoutMs)] : []),
  ]);
  return {
    child,
    localPorts: () =>
      new Map(
        linesOf(child)
          .map((line) => line.match(/^open (\d+) (\d+)$/))
          .filter((m) => m !== null)
          .map((m) => [Number(m[1]), Number(m[2])]),
      ),
    async stats() {
      const after = linesOf(child).length;
      child.stdin!.write('stats\n');
      await waitForLine(child, /^stats-end$/, { after });
      return linesOf(child)
        .slice(after)
        .flatMap((line) => {
          const [word, index, sent, echoed, server = '-'] = line.split(' ');
          if (word !== 'stats') return [];
          return [
            {
              index: Number(index),
              sent: Number(sent),
              echoed: Number(echoed),
              server: server === '-' ? null : server,
            },
          ];
        });
    },
    async quit() {
      child.stdin!.write('quit\n');
      await waitForLine(child, /^bye$/);
    },
  };
}

/**
 * Opens and closes associations to `connect` (its first address) as fast as it can for `seconds`
 * on `parallel` threads: how many completed their four-way handshake, and how many failed.
 */
export async function runSctpRate(
  hosts: PeerHosts,
  host: string,
  options: { connect: string; port: number; bind?: string[]; seconds: number; parallel?: number },
): Promise<{ associations: number; failed: number }> {
  const child = await start(hosts, host, 'rate', [
    '--connect',
    options.connect,
    '--port',
    String(options.port),
    ...(options.bind ? ['--bind', options.bind.join(',')] : []),
    '--seconds',
    String(options.seconds),
    ...(options.parallel ? ['--parallel', String(options.parallel)] : []),
  ]);
  // A handshake under way at the end may take its INIT retransmissions (4 s) to fail.
  const done = await waitForLine(child, /^associations (\d+)$/, {
    timeoutMs: options.seconds * 1000 + 15_000,
  });
  const failed = linesOf(child)
    .map((line) => line.match(/^failed (\d+)$/))
    .find((m) => m !== null);
  return { associations: Number(done[1]), failed: Number(failed?.[1] ?? 0) };
}

/**
 * A second network for some hosts of a built topology: a bridge br1 beside br0 in its switch
 * namespace, and per host a link eth1 on it with `addresses[host]` (IPv4 /24 or IPv6 /64). Gone
 * with the topology's `remove()` (the namespaces take their links with them).
 */
export function addSecondNetwork(topology: Topology, addresses: Record<string, string>) {
  const p = topology.prefix;
  ip('-n', topology.ns('sw'), 'link', 'add', 'br1', 'type', 'bridge');
  ip('-n', topology.ns('sw'), 'link', 'set', 'br1', 'up');
  for (const [name, address] of Object.entries(addresses)) {
    ip('link', 'add', `${p}${name}1`, 'type', 'veth', 'peer', 'name', `${p}${name}1p`);
    ip('link', 'set', `${p}${name}1`, 'netns', topology.ns(name));
    ip('link', 'set', `${p}${name}1p`, 'netns', topology.ns('sw'));
    ip('-n', topology.ns(name), 'link', 'set', `${p}${name}1`, 'name', 'eth1');
    if (address.includes(':'))
      ip('-n', topology.ns(name), '-6', 'addr', 'add', `${address}/64`, 'dev', 'eth1', 'nodad');
    else ip('-n', topology.ns(name), 'addr', 'add', `${address}/24`, 'dev', 'eth1');
    ip('-n', topology.ns(name), 'link', 'set', 'eth1', 'up');
    ip('-n', topology.ns('sw'), 'link', 'set', `${p}${name}1p`, 'master', 'br1');
    ip('-n', topology.ns('sw'), 'link', 'set', `${p}${name}1p`, 'up');
  }
}

/** Takes a host's link (eth0 on br0, eth1 on br1) off its bridge, or puts it back. */
export function setBridgePort(
  topology: Topology,
  host: string,
  link: 'eth0' | 'eth1',
  up: boolean,
) {
  const port = `${topology.prefix}${host}${link === 'eth0' ? '' : '1'}p`;
  ip('-n', topology.ns('sw'), 'link', 'set', port, up ? 'up' : 'down');
}
