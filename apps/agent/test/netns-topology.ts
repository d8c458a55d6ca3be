import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';

/** Whether this machine lets a test build network namespaces (root, iproute2). */
export const netnsAvailable =
  process.getuid?.() === 0 && spawnSync('ip', ['netns', 'list']).status === 0;

export function ip(...args: string[]) {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/**
 * Hosts in network namespaces of their own, each with one veth link (eth0) to a bridge that lives
 * in a namespace too: nothing of it touches the machine's own interfaces. `remove()` undoes it all.
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
      ip('-n', this.ns(name), 'addr', 'add', `${address}/24`, 'dev', 'eth0');
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
    child.stdout!.resume();
    child.stderr!.resume();
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
