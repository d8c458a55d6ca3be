import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cpuTimesOf, diskPctOf, HostWatch, memoryPctOf, thresholdOf } from './host-resources.ts';

describe('the host’s own load', () => {
  it('counts CPU busy as all but idle and iowait', () => {
    const stat = 'cpu  100 5 50 800 40 3 2 0 0 0\ncpu0 50 2 25 400 20 1 1 0 0 0\nintr 1\n';
    expect(cpuTimesOf(stat)).toEqual({ busy: 160, total: 1000 });
    expect(cpuTimesOf('intr 1\n')).toBeNull();
    expect(cpuTimesOf('cpu  a b c d\n')).toBeNull();
  });

  it('counts memory in use as what is not available to new work', () => {
    const meminfo =
      'MemTotal:       1000000 kB\nMemFree:          50000 kB\nMemAvailable:     250000 kB\n';
    expect(memoryPctOf(meminfo)).toBe(75);
    expect(memoryPctOf('MemTotal: 1000 kB\n')).toBeNull();
  });

  it('counts a disk as df does (blocks reserved for root are not free to use)', () => {
    // 1000 blocks, 400 free of which 350 to anyone: 600 used of 950 usable.
    expect(diskPctOf({ blocks: 1000, bfree: 400, bavail: 350 })).toBeCloseTo(63.16, 2);
    expect(diskPctOf({ blocks: 0, bfree: 0, bavail: 0 })).toBeNull();
  });

  it('clears an alarm five points below where it raises it', () => {
    expect(thresholdOf(90)).toEqual({ raisePct: 90, clearPct: 85 });
    expect(thresholdOf(3)).toEqual({ raisePct: 3, clearPct: 0 });
  });

  it('reads this machine’s memory and the state disk, and CPU once it has two samples', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipfe-host-'));
    try {
      const watch = new HostWatch(dir);
      const first = await watch.read(0);
      expect(first.cpuPct).toBeNull();
      expect(first.memoryPct).toBeGreaterThan(0);
      expect(first.memoryPct).toBeLessThan(100);
      expect(first.diskPct).toBeGreaterThan(0);
      expect(first.diskPct).toBeLessThanOrEqual(100);
      await new Promise((r) => setTimeout(r, 50));
      const second = await watch.read(50);
      expect(second.cpuPct).not.toBeNull();
      expect(second.cpuPct!).toBeGreaterThanOrEqual(0);
      expect(second.cpuPct!).toBeLessThanOrEqual(100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
