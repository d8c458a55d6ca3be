import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { keepOutput } from './lab.ts';

/** Whether this machine lets a test build network namespaces (root, iproute2). */
export const netnsAvailable =
  process.getuid?.() === 0 && spawnSync('ip', ['netns', 'list']).status === 0;

export function ip(...args: string[]) {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/**
 * Hosts in network namespaces of their own, each with one veth link (eth0) to a bridge that lives
 * in a namespace too: nothing of it touches the machine's own interfaces. `remove()` undoes it all.
 * A host's address may be IPv4 (on a /24) or IPv6 (on a /64).
 */
export class Topology {
  readonly processes: ChildProcess[] = [];

  constructor(
    readonly prefix: string,
    readonly hosts: Record<string, string>,
  ) {}

  ns(name: string) {
    return `${this.prefix}-${name}`;
  }

  build() {
    const p = this.prefix;
    ip('netns', 'add', this.ns('sw'));
    ip('-n', this.ns('sw'), 'link', 'add', 'br0', 'type', 'bridge');
    ip('-n', this.ns('sw'), 'link', 'set', 'br0', 'up');
    for (const [name, address] of Object.entries(this.hosts)) {
      ip('netns', 'add', this.ns(name));
      ip('link', 'add', `${p}${name}`, 'type', 'veth', 'peer', 'name', `${p}${name}p`);
      ip('link', 'set', `${p}${name}`, 'netns', this.ns(name));
      ip('link', 'set', `${p}${name}p`, 'netns', this.ns('sw'));
      ip('-n', this.ns(name), 'link', 'set', `${p}${name}`, 'name', 'eth0');
      // IPv4 hosts on a /24; IPv6 hosts on a /64, usable at once (no duplicate address detection).
      if (address.includes(':'))
        ip('-n', this.ns(name), '-6', 'addr', 'add', `${address}/64`, 'dev', 'eth0', 'nodad');
      else ip('-n', this.ns(name), 'addr', 'add', `${address}/24`, 'dev', 'eth0');
      ip('-n', this.ns(name), 'link', 'set', 'eth0', 'up');
      ip('-n', this.ns(name), 'link', 'set', 'lo', 'up');
      ip('-n', this.ns('sw'), 'link', 'set', `${p}${name}p`, 'master', 'br0');
      ip('-n', this.ns('sw'), 'link', 'set', `${p}${name}p`, 'up');
    }
  }

  /** Runs a command in a host's namespace, in a process group of its own. */
  run(name: string, command: string[], env: Record<string, string> = {}) {
    const child = spawn('ip', ['netns', 'exec', this.ns(name), ...command], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    keepOutput(child, name);
    this.processes.push(child);
    return child;
  }

  exec(name: string, command: string[]) {
    return spawnSync('ip', ['netns', 'exec', this.ns(name), ...command], { encoding: 'utf8' });
  }

  kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // gone already
    }
  }

  remove() {
    for (const child of this.processes) this.kill(child);
    for (const name of ['sw', ...Object.keys(this.hosts)])
      spawnSync('ip', ['netns', 'del', this.ns(name)]);
  }
}

export const repoRoot = new URL('../../../', import.meta.url).pathname;

/** An application server in its namespace: a service on 3868 that names itself then echoes, and a reporter. */
export function startNamedServer(topology: Topology, name: string, address: string): ChildProcess {
  topology.run(name, [
    process.execPath,
    '-e',
    `require('net').createServer((c) => { c.on('error', () => {}); c.write('${name}\\n'); c.pipe(c); }).listen(3868, '${address}')`,
  ]);
  return topology.run(name, [
    process.execPath,
    `${repoRoot}packages/reporter/bin/ipfe-reporter.js`,
    '--listen',
    address.includes(':') ? `[${address}]:9675` : `${address}:9675`,
    '--mps-capacity',
    '100',
    '--connection-capacity',
    '100',
    '--interval-ms',
    '200',
  ]);
}

export interface KernelClient {
  ask(line: string): Promise<Record<string, number>>;
}

/** The client of kernel-driver.ts in the `client` namespace: one command line in, one JSON line out. */
export function startKernelClient(topology: Topology): KernelClient {
  const driver = topology.run('client', [
    process.execPath,
    '--import',
    'tsx',
    `${repoRoot}apps/agent/test/kernel-driver.ts`,
  ]);
  const waiting: ((v: Record<string, number>) => void)[] = [];
  createInterface({ input: driver.stdout! }).on('line', (line) =>
    waiting.shift()?.(JSON.parse(line)),
  );
  return {
    ask: (line) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        driver.stdin!.write(`${line}\n`);
      }),
  };
}
