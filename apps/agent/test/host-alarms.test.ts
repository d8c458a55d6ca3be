import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { controlOf, loopbackLab } from './loopback-lab.ts';
import { until } from './poll.ts';

/**
 * The IPFE host's own alarms (issue 27 item 2): an agent process whose thresholds its host is
 * above raises 5102 Disk Becoming Full and 5103 Memory Overload with what it read; one with the
 * default thresholds (90 %) raises none on this machine.
 */
const lab = loopbackLab(import.meta.url);

describe('the host’s own alarms', () => {
  it('raises Disk Becoming Full and Memory Overload above the thresholds its flags set', async () => {
    lab.spawnAgent({
      slot: 'A1',
      host: lab.a1,
      dir: lab.stateDir(),
      args: ['--disk-full-pct', '1', '--memory-overload-pct', '1', '--cpu-overload-pct', '100'],
    });
    const control = controlOf(lab.a1);
    await until('the agent answers', () => control.health());
    await lab.configure(control);
    const alarms = await until('5102 and 5103 raised', async () => {
      const { alarms } = await control.status();
      const codes = alarms.map((a) => a.code);
      return codes.includes(5102) && codes.includes(5103) ? alarms : null;
    });
    const disk = alarms.find((a) => a.code === 5102)!;
    expect(disk).toMatchObject({ name: 'Disk Becoming Full', severity: 'major' });
    expect(disk.text).toMatch(/^The state disk in use: \d+\.\d % \(threshold 1 %\)$/);
    expect(alarms.find((a) => a.code === 5103)?.text).toMatch(
      /^Memory in use: \d+\.\d % \(threshold 1 %\)$/,
    );
    expect(alarms.map((a) => a.code)).not.toContain(5101);
  });

  it('raises none of them at the default thresholds (90 %) while the host has room', async () => {
    const dir = lab.stateDir();
    const agent = await lab.startAgent({ host: lab.a2, slot: 'A2', dir });
    await lab.configure(agent);
    // Two evaluations (a second apart) read the host.
    await new Promise((r) => setTimeout(r, 2500));
    const codes = (await agent.status()).alarms.map((a) => a.code);
    // What df and /proc/meminfo say of this host, read here apart from the agent: a host that is
    // itself near a threshold is not one with room.
    const diskPct = Number(
      execFileSync('df', ['--output=pcent', dir], { encoding: 'utf8' }).match(/(\d+)%/)?.[1],
    );
    const meminfo = readFileSync('/proc/meminfo', 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(meminfo)?.[1]);
    const memoryPct = (100 * (kb('MemTotal') - kb('MemAvailable'))) / kb('MemTotal');
    if (diskPct < 85) expect(codes).not.toContain(5102);
    if (memoryPct < 85) expect(codes).not.toContain(5103);
    expect(diskPct < 85 || memoryPct < 85).toBe(true);
  });
});
