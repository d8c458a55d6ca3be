import { describe, expect, it } from 'vitest';
import { overloadedPorts, throttledPorts, ThrottleWatch, type PortLoad } from './throttle-watch.ts';

const ports = (packets: number, dropped = 0) => new Map([[3868, { packets, dropped }]]);

describe('the packet rate of each forwarded port', () => {
  it('is taken over a second or more of the counters, dropped packets apart', () => {
    const watch = new ThrottleWatch();
    watch.record(0, ports(0));
    expect(watch.loads()).toEqual([]);
    watch.record(500, ports(200_000));
    expect(watch.loads()).toEqual([]);
    watch.record(1000, ports(500_000, 100_000));
    expect(watch.loads()).toEqual([
      { port: 3868, pps: 500_000, droppedPps: 100_000, lastDropAt: 1000 },
    ]);
  });

  it('starts a port again when its counters go back (its table made anew)', () => {
    const watch = new ThrottleWatch();
    watch.record(0, ports(9_000_000, 50));
    watch.record(1000, ports(100));
    expect(watch.loads()).toEqual([]);
    watch.record(2000, ports(1100));
    expect(watch.loads()).toEqual([{ port: 3868, pps: 1000, droppedPps: 0, lastDropAt: null }]);
  });

  it('remembers when it last dropped, beyond the samples it keeps', () => {
    const watch = new ThrottleWatch();
    watch.record(0, ports(0, 0));
    watch.record(1000, ports(10, 5));
    for (let t = 2000; t <= 20_000; t += 1000) watch.record(t, ports(10 + t, 5));
    expect(watch.loads()[0]?.lastDropAt).toBe(1000);
  });
});

const load = (pps: number, parts: Partial<PortLoad> = {}): PortLoad => ({
  port: 3868,
  pps,
  droppedPps: 0,
  lastDropAt: null,
  ...parts,
});

describe('Traffic Overload (5100)', () => {
  it.each([
    { case: 'below 80 %', pps: 399_999, active: false, raised: false },
    { case: 'at 80 %', pps: 400_000, active: true, raised: true },
    { case: 'raised and still at 70 %', pps: 350_000, active: true, raised: true },
    { case: 'raised and below 70 %', pps: 349_999, active: true, raised: false },
    { case: 'not raised at 75 %', pps: 375_000, active: false, raised: false },
  ])('$case of 500,000 packets/s: raised $raised', ({ pps, active, raised }) => {
    const wanted = overloadedPorts([load(pps)], 500_000, () => active);
    expect(wanted.length > 0).toBe(raised);
  });

  it('names the port, its rate and the limit', () => {
    expect(overloadedPorts([load(412_345)], 500_000, () => false)).toEqual([
      {
        server: 'port 3868',
        text: 'Port 3868 takes 412,345 packets/s, 82 % of the Global Packet Rate Limit (500,000 packets/s)',
      },
    ]);
  });
});

describe('Throttling Traffic (5013)', () => {
  it.each([
    { case: 'never dropped', lastDropAt: null, raised: false },
    { case: 'dropped 4.9 s ago', lastDropAt: 5100, raised: true },
    { case: 'nothing dropped for 5 s', lastDropAt: 5000, raised: false },
  ])('$case: raised $raised', ({ lastDropAt, raised }) => {
    const wanted = throttledPorts(
      [load(40_000, { droppedPps: 20_000, lastDropAt })],
      20_000,
      10_000,
    );
    expect(wanted.length > 0).toBe(raised);
  });

  it('says how much is dropped', () => {
    expect(
      throttledPorts([load(40_000, { droppedPps: 20_000, lastDropAt: 0 })], 20_000, 0),
    ).toEqual([
      {
        server: 'port 3868',
        text: 'Port 3868: 20,000 packets/s above the Global Packet Rate Limit (20,000 packets/s) dropped',
      },
    ]);
  });
});
