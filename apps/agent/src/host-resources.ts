import { readFile, statfs } from 'node:fs/promises';
import type { AlarmCode } from '@ipfe/schema';
import type { WantedAlarm } from './alarm-rules.ts';

/** The IPFE host's own load, in percent (null where it could not be read). */
export interface HostReadings {
  /** CPU busy over the last WINDOW_MS, all cores. */
  cpuPct: number | null;
  /** Memory in use: not available to new work (MemTotal − MemAvailable). */
  memoryPct: number | null;
  /** The agent's state disk in use, as df counts it (used / (used + available to it)). */
  diskPct: number | null;
}

/** A resource's alarm is raised at `raisePct` and cleared below `clearPct` (no flapping). */
export interface Threshold {
  readonly raisePct: number;
  readonly clearPct: number;
}

export interface HostThresholds {
  readonly cpu: Threshold;
  readonly memory: Threshold;
  readonly disk: Threshold;
}

/** How far below its threshold a resource must fall for its alarm to clear. */
export const CLEAR_BELOW_POINTS = 5;

export const thresholdOf = (raisePct: number): Threshold => ({
  raisePct,
  clearPct: Math.max(0, raisePct - CLEAR_BELOW_POINTS),
});

/** Defaults (docs/agent.md); each is the agent's flag --cpu-overload-pct and so on. */
export const DEFAULT_HOST_THRESHOLDS: HostThresholds = {
  cpu: thresholdOf(90),
  memory: thresholdOf(90),
  disk: thresholdOf(90),
};

const NAMES = { cpu: 'CPU', memory: 'Memory', disk: 'The state disk' } as const;
const READING = { cpu: 'cpuPct', memory: 'memoryPct', disk: 'diskPct' } as const;

/**
 * The alarm of one resource, wanted while it is at or above its threshold, or — already raised —
 * until it falls below the clearing level.
 */
export function hostAlarm(
  resource: keyof HostThresholds,
  code: AlarmCode,
  inputs: {
    host: { readings: HostReadings; thresholds: HostThresholds } | null;
    isActive(code: AlarmCode): boolean;
  },
): WantedAlarm[] {
  if (!inputs.host) return [];
  const pct = inputs.host.readings[READING[resource]];
  if (pct === null) return [];
  const { raisePct, clearPct } = inputs.host.thresholds[resource];
  const over = pct >= raisePct || (inputs.isActive(code) && pct >= clearPct);
  if (!over) return [];
  const what = resource === 'cpu' ? 'busy' : 'in use';
  return [
    {
      text: `${NAMES[resource]} ${what}: ${pct.toFixed(1)} % (threshold ${raisePct} %)`,
    },
  ];
}

/** The busy and total jiffies of all CPUs, from /proc/stat's first line. */
export function cpuTimesOf(procStat: string): { busy: number; total: number } | null {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  if (fields.length < 4 || fields.some((n) => !Number.isFinite(n))) return null;
  // user nice system idle iowait irq softirq steal (guest time is already in user and nice).
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
    fields;
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return { busy: total - idle - iowait, total };
}

/** Memory in use, from /proc/meminfo (MemAvailable, the kernel's own estimate). */
export function memoryPctOf(meminfo: string): number | null {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(meminfo);
    return m ? Number(m[1]) : null;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable');
  if (!total || available === null) return null;
  return (100 * (total - available)) / total;
}

/** A file system's use as df shows it: blocks used of those used and free to unprivileged users. */
export function diskPctOf(fs: { blocks: number; bfree: number; bavail: number }): number | null {
  const used = fs.blocks - fs.bfree;
  const usable = used + fs.bavail;
  return usable > 0 ? (100 * used) / usable : null;
}

/** CPU use is judged over this long, so that a burst is not an overload. */
export const WINDOW_MS = 10_000;

/** Reads the host's load each time it is asked (the agent asks once a second). */
export class HostWatch {
  #cpu: { at: number; busy: number; total: number }[] = [];

  constructor(private readonly stateDir: string) {}

  async read(now: number): Promise<HostReadings> {
    const [stat, meminfo, fs] = await Promise.all([
      readFile('/proc/stat', 'utf8').catch(() => ''),
      readFile('/proc/meminfo', 'utf8').catch(() => ''),
      statfs(this.stateDir).catch(() => null),
    ]);
    const times = cpuTimesOf(stat);
    if (times) this.#cpu.push({ at: now, ...times });
    while (this.#cpu.length > 2 && now - this.#cpu[1]!.at >= WINDOW_MS) this.#cpu.shift();
    const first = this.#cpu[0];
    const last = this.#cpu[this.#cpu.length - 1];
    const cpuPct =
      first && last && last.total > first.total
        ? (100 * (last.busy - first.busy)) / (last.total - first.total)
        : null;
    return {
      cpuPct,
      memoryPct: memoryPctOf(meminfo),
      diskPct: fs ? diskPctOf(fs) : null,
    };
  }
}
