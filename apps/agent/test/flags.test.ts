import { describe, expect, it } from 'vitest';
import { readFlags } from '../src/flags.ts';

const TOKEN = 'flags-token-0123456789abcdefghijklmnopqrstu';
const BASE = ['--slot', 'A1', '--control', '127.0.0.1:8701', '--state-dir', '/tmp/ipfe-flags'];
const read = (...extra: string[]) => readFlags([...BASE, ...extra], { IPFE_AGENT_TOKEN: TOKEN });

describe('--dataplane', () => {
  it('forwards in user space unless told otherwise', () => {
    expect(read()).toMatchObject({ flags: { dataplane: 'userspace', manageAddresses: null } });
  });

  it('accepts direct with the XSI interface it forwards on (--manage-addresses DEV)', () => {
    expect(read('--dataplane', 'direct', '--manage-addresses', 'eth1')).toMatchObject({
      flags: { dataplane: 'direct', manageAddresses: 'eth1', syncConntrack: false },
    });
  });

  it('refuses direct without --manage-addresses, saying which interface it needs', () => {
    expect(read('--dataplane', 'direct')).toEqual({
      problems: [
        '--dataplane direct needs --manage-addresses DEV (the XSI interface it forwards on)',
      ],
    });
  });

  it('refuses an unknown data path, naming the three there are', () => {
    expect(read('--dataplane', 'ebpf', '--manage-addresses', 'eth1')).toEqual({
      problems: ['--dataplane must be userspace, kernel or direct'],
    });
  });

  it('keeps --sync-conntrack to the kernel path', () => {
    expect(read('--dataplane', 'direct', '--manage-addresses', 'eth1', '--sync-conntrack')).toEqual(
      { problems: ['--sync-conntrack needs --dataplane kernel and --manage-addresses DEV'] },
    );
  });
});

describe('the host thresholds (alarms 5101–5103)', () => {
  it('raise at 90 % and clear below 85 % unless told otherwise', () => {
    expect(read()).toMatchObject({
      flags: {
        hostThresholds: {
          cpu: { raisePct: 90, clearPct: 85 },
          memory: { raisePct: 90, clearPct: 85 },
          disk: { raisePct: 90, clearPct: 85 },
        },
      },
    });
  });

  it('take each from its flag', () => {
    expect(
      read('--cpu-overload-pct', '75', '--memory-overload-pct', '80', '--disk-full-pct', '95'),
    ).toMatchObject({
      flags: {
        hostThresholds: {
          cpu: { raisePct: 75, clearPct: 70 },
          memory: { raisePct: 80, clearPct: 75 },
          disk: { raisePct: 95, clearPct: 90 },
        },
      },
    });
  });

  it.each(['0', '101', '12.5', 'high'])('refuses %s, naming the flag', (value) => {
    expect(read('--disk-full-pct', value)).toEqual({
      problems: ['--disk-full-pct must be a whole percentage from 1 to 100'],
    });
  });
});

describe('the TSA-facing link’s next hops (decision 028)', () => {
  const device = ['--manage-addresses', 'eth0'];

  it('probes the gateways of the device’s default routes every 200 ms, down after 3 misses, unless told otherwise', () => {
    expect(read(...device)).toMatchObject({
      flags: { linkWatch: { nextHops: 'routes', intervalMs: 200, misses: 3 } },
    });
  });

  it('takes the next hops, interval and misses from their flags, or none', () => {
    expect(
      read(
        ...device,
        '--next-hop',
        '192.0.2.1,2001:db8::1',
        '--next-hop-interval-ms',
        '100',
        '--next-hop-misses',
        '5',
      ),
    ).toMatchObject({
      flags: { linkWatch: { nextHops: ['192.0.2.1', '2001:db8::1'], intervalMs: 100, misses: 5 } },
    });
    expect(read(...device, '--next-hop', 'none')).toMatchObject({
      flags: { linkWatch: { nextHops: [] } },
    });
  });

  it.each([
    [
      ['--next-hop', '192.0.2.1,router'],
      '--next-hop must be IP addresses separated by commas, or none',
    ],
    [
      ['--next-hop-interval-ms', '10'],
      '--next-hop-interval-ms must be milliseconds from 50 to 10000',
    ],
    [['--next-hop-misses', '0'], '--next-hop-misses must be a whole number from 1 to 100'],
  ])('refuses %j, naming the flag', (flags, problem) => {
    expect(read(...device, ...flags)).toEqual({ problems: [problem] });
  });

  it('needs the device whose next hops it probes', () => {
    expect(read('--next-hop', '192.0.2.1')).toEqual({
      problems: [
        '--next-hop needs --manage-addresses DEV (the TSA-facing link whose next hops it probes)',
      ],
    });
  });
});
