import { spawnSync, type ChildProcess } from 'node:child_process';
import { netnsAvailable, Topology } from '../../apps/agent/test/netns-topology.ts';
import { onCleanup } from './cleanup.ts';
import type { CpuGroup } from './cpu.ts';
import { until } from './stats.ts';

export { netnsAvailable };

/**
 * The agent tests' network-namespace topology (hosts on a bridge, each in a namespace of its own),
 * with what a benchmark adds: every process it starts joins the benchmark's CPU group, TIME_WAIT
 * sockets are reused in every namespace, and removal is registered for any exit.
 */
export class BenchNet {
  readonly topology: Topology;
  readonly #remove: () => void;
  #removing = false;

  constructor(
    prefix: string,
    readonly hosts: Record<string, string>,
    private readonly group: CpuGroup | null,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.topology = new Topology(prefix, hosts);
    removeLeftovers(prefix, Object.keys(hosts));
    this.#remove = onCleanup(`namespaces ${prefix}-*`, () => {
      this.topology.remove();
      removeLeftovers(prefix, Object.keys(hosts));
    });
    this.topology.build();
    for (const host of Object.keys(hosts)) {
      this.sysctl(host, 'net.ipv4.tcp_tw_reuse', '1');
      this.sysctl(host, 'net.ipv4.ip_local_port_range', '10000 65000');
      this.sysctl(host, 'net.core.somaxconn', '4096');
      this.sysctl(host, 'net.ipv4.tcp_max_syn_backlog', '4096');
    }
  }

  sysctl(host: string, key: string, value: string) {
    this.sh(host, ['sysctl', '-qw', `${key}=${value}`]);
  }

  /** A long-running process in a host's namespace, counted in the benchmark's CPU group. */
  run(host: string, command: string[], env: Record<string, string> = {}): ChildProcess {
    const child = this.topology.run(host, command, env);
    this.group?.add(child.pid);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d).slice(-2000)));
    child.once('exit', (code, signal) => {
      if (this.#removing || signal === 'SIGKILL' || signal === 'SIGTERM' || code === 0) return;
      this.log(
        `${host}: ${command.slice(0, 3).join(' ')} … exited (${code ?? signal}): ${stderr.trim()}`,
      );
    });
    return child;
  }

  exec(host: string, command: string[]) {
    return this.topology.exec(host, command);
  }

  /** Runs a command in a host's namespace; throws with its error output when it fails. */
  sh(host: string, command: string[]): string {
    const result = this.topology.exec(host, command);
    if (result.status !== 0)
      throw new Error(`${host}: ${command.join(' ')}: ${(result.stderr || result.stdout).trim()}`);
    return result.stdout;
  }

  kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') {
    this.topology.kill(child, signal);
  }

  /** Ends a process and waits (bounded) until it has exited. */
  async stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 12_000) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.kill(child, signal);
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs));
    if ((await Promise.race([exited, timer])) === 'timeout') {
      this.kill(child, 'SIGKILL');
      await exited;
    }
  }

  /** Waits until a TCP port answers from a host's namespace. */
  async reachable(from: string, host: string, port: number, timeoutMs = 20_000) {
    await until(
      `${host}:${port} from ${from}`,
      () =>
        this.exec(from, ['timeout', '2', 'bash', '-c', `exec 3<>/dev/tcp/${host}/${port}`])
          .status === 0,
      timeoutMs,
      200,
    );
  }

  remove() {
    this.#removing = true;
    this.#remove();
  }
}

/** Namespaces and veth ends an interrupted earlier run with the same prefix may have left. */
function removeLeftovers(prefix: string, hosts: string[]) {
  const existing = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout;
  for (const name of ['sw', ...hosts]) {
    if (existing.includes(`${prefix}-${name}`))
      spawnSync('ip', ['netns', 'del', `${prefix}-${name}`]);
    spawnSync('ip', ['link', 'del', `${prefix}${name}`], { stdio: 'ignore' });
  }
}
