import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';

/** Clock ticks per second of /proc/stat and /proc/PID/stat (100 on every common Linux build). */
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const US_PER_TICK = 1e6 / TICKS;

/** System-wide busy CPU time (µs, all cores) from the first line of /proc/stat: all but idle, iowait and steal. */
export function systemBusyUs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq!) * US_PER_TICK;
}

/** CPU time (µs) of the kernel's softirq threads: network work deferred out of a task's context. */
export function ksoftirqdUs(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('ksoftirqd')) continue;
      const fields = stat.slice(close + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * US_PER_TICK;
    } catch {
      // the process ended while we read
    }
  }
  return total;
}

/**
 * A cgroup-v1 cpuacct group holding every process a benchmark starts (servers, clients, agents,
 * HAProxy) and what they spawn: its `cpuacct.usage` is their CPU time in ns, exited children
 * included. Without IRQ time accounting (this kernel), softirq work done in a task's context is
 * charged to that task, so the kernel data path's packet work is counted too.
 */
export class CpuGroup {
  readonly path: string | null;

  constructor(name: string) {
    const root = '/sys/fs/cgroup/cpuacct';
    let path: string | null = `${root}/${name}`;
    try {
      if (!existsSync(root)) throw new Error('no cpuacct hierarchy');
      mkdirSync(path, { recursive: true });
    } catch {
      path = null;
    }
    this.path = path;
  }

  add(pid: number | undefined) {
    if (!this.path || pid === undefined) return;
    try {
      writeFileSync(`${this.path}/cgroup.procs`, String(pid));
    } catch {
      // it ended already
    }
  }

  usageUs(): number | null {
    if (!this.path) return null;
    return Number(readFileSync(`${this.path}/cpuacct.usage`, 'utf8').trim()) / 1000;
  }

  /** User and kernel (system calls, softirq work charged to the task) time, in ticks (cpuacct.stat). */
  split(): { user: number; system: number } | null {
    if (!this.path) return null;
    const stat = readFileSync(`${this.path}/cpuacct.stat`, 'utf8');
    return {
      user: Number(/user (\d+)/.exec(stat)?.[1] ?? NaN),
      system: Number(/system (\d+)/.exec(stat)?.[1] ?? NaN),
    };
  }

  /**
   * Moves anything left to the parent group and removes this one. A process that outlives its
   * parent (an agent's exit guard, running its undo commands) may fork into the group meanwhile,
   * or still be exiting: the removal is tried again for up to 3 s.
   */
  remove() {
    if (!this.path) return;
    const deadline = Date.now() + 3000;
    for (;;) {
      try {
        const parent = `${this.path}/..`;
        for (const pid of readFileSync(`${this.path}/cgroup.procs`, 'utf8').split('\n'))
          if (pid.trim())
            try {
              writeFileSync(`${parent}/cgroup.procs`, pid.trim());
            } catch {
              // ended meanwhile
            }
        rmdirSync(this.path);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EBUSY' || Date.now() > deadline) return;
        spawnSync('sleep', ['0.05']);
      }
    }
  }
}

export interface CpuSnapshot {
  atUs: number;
  systemUs: number;
  ownUs: number | null;
  softirqThreadsUs: number;
}

export function snapshot(group: CpuGroup | null): CpuSnapshot {
  return {
    atUs: Number(process.hrtime.bigint() / 1000n),
    systemUs: systemBusyUs(),
    ownUs: group?.usageUs() ?? null,
    softirqThreadsUs: ksoftirqdUs(),
  };
}

/** CPU used between two snapshots: system-wide, the bench's own processes (+ softirq threads), wall. */
export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot) {
  const softirq = b.softirqThreadsUs - a.softirqThreadsUs;
  const own = a.ownUs === null || b.ownUs === null ? null : b.ownUs - a.ownUs + softirq;
  const system = b.systemUs - a.systemUs;
  return {
    wallUs: b.atUs - a.atUs,
    systemUs: system,
    ownUs: own,
    /** What everything else on the machine used meanwhile (the noise in the system-wide figure). */
    othersUs: own === null ? null : system - own,
  };
}

export type CpuUse = ReturnType<typeof cpuBetween>;
