import { describe, expect, it } from 'vitest';
import {
  initialLinkHealth,
  next,
  type LinkAction,
  type LinkEvent,
  type LinkHealth,
} from './link-health.ts';

const start = initialLinkHealth('eth0', 3);
/** Carrier up, two next hops answering. */
const healthy: LinkHealth = {
  ...start,
  operstate: 'up',
  nextHops: [
    { address: '192.0.2.1', missed: 0 },
    { address: '2001:db8::1', missed: 0 },
  ],
};
const withMissed = (state: LinkHealth, address: string, missed: number): LinkHealth => ({
  ...state,
  nextHops: state.nextHops.map((h) => (h.address === address ? { address, missed } : h)),
});
const v4Silent = 'next hop 192.0.2.1 answered none of the last 3 ARP requests';
const v6Silent = 'next hop 2001:db8::1 answered none of the last 3 neighbour solicitations';
const noCarrier = 'no carrier on eth0 (operstate lowerlayerdown)';

const probe = (address: string, answered: boolean): LinkEvent => ({
  type: 'probe',
  address,
  answered,
});

describe('TSA-facing link health', () => {
  it.each<[string, LinkHealth, LinkEvent, Partial<LinkHealth>, LinkAction[]]>([
    [
      'before the first read: up (a starting node is not held back)',
      start,
      probe('192.0.2.1', false),
      { down: null, operstate: null },
      [],
    ],
    ['carrier up', start, { type: 'operstate', state: 'up' }, { down: null }, []],
    [
      'a device that reports no carrier state carries traffic',
      start,
      { type: 'operstate', state: 'unknown' },
      { down: null },
      [],
    ],
    [
      'carrier lost (the other end down, a cable pulled): down',
      healthy,
      { type: 'operstate', state: 'lowerlayerdown' },
      { down: noCarrier },
      [{ do: 'down' }],
    ],
    [
      'the device set down here: down',
      healthy,
      { type: 'operstate', state: 'down' },
      { down: 'no carrier on eth0 (operstate down)' },
      [{ do: 'down' }],
    ],
    [
      'the device gone: down',
      healthy,
      { type: 'operstate', state: '' },
      { down: 'eth0 is gone' },
      [{ do: 'down' }],
    ],
    [
      'carrier back: up',
      { ...healthy, operstate: 'lowerlayerdown', down: noCarrier },
      { type: 'operstate', state: 'up' },
      { down: null },
      [{ do: 'up' }],
    ],
    [
      'one probe missed: still up',
      healthy,
      probe('192.0.2.1', false),
      { down: null, nextHops: withMissed(healthy, '192.0.2.1', 1).nextHops },
      [],
    ],
    [
      'two missed: still up',
      withMissed(healthy, '192.0.2.1', 1),
      probe('192.0.2.1', false),
      { down: null },
      [],
    ],
    [
      'the third missed in a row: down',
      withMissed(healthy, '192.0.2.1', 2),
      probe('192.0.2.1', false),
      { down: v4Silent },
      [{ do: 'down' }],
    ],
    [
      'an answer resets the count',
      withMissed(healthy, '192.0.2.1', 2),
      probe('192.0.2.1', true),
      { down: null, nextHops: healthy.nextHops },
      [],
    ],
    [
      'an IPv6 next hop silent: down, said as neighbour solicitations',
      withMissed(healthy, '2001:db8::1', 2),
      probe('2001:db8::1', false),
      { down: v6Silent },
      [{ do: 'down' }],
    ],
    [
      'a silent next hop answering again: up',
      { ...withMissed(healthy, '192.0.2.1', 3), down: v4Silent },
      probe('192.0.2.1', true),
      { down: null },
      [{ do: 'up' }],
    ],
    [
      'more missed while down: nothing more to do',
      { ...withMissed(healthy, '192.0.2.1', 3), down: v4Silent },
      probe('192.0.2.1', false),
      { down: v4Silent, nextHops: withMissed(healthy, '192.0.2.1', 3).nextHops },
      [],
    ],
    [
      'carrier back while the next hop is still silent: still down',
      {
        ...withMissed(healthy, '192.0.2.1', 3),
        operstate: 'lowerlayerdown',
        down: `${noCarrier}; ${v4Silent}`,
      },
      { type: 'operstate', state: 'up' },
      { down: v4Silent },
      [],
    ],
    [
      'the other next hop missing a probe while down: down for the first alone',
      { ...withMissed(healthy, '192.0.2.1', 3), down: v4Silent },
      { type: 'probe', address: '2001:db8::1', answered: false },
      { down: v4Silent },
      [],
    ],
    [
      'a probe of an address no longer probed is ignored',
      healthy,
      probe('192.0.2.99', false),
      { down: null, nextHops: healthy.nextHops },
      [],
    ],
    [
      'next hops changed: the kept one keeps its count, the new one starts at 0',
      withMissed(healthy, '192.0.2.1', 2),
      { type: 'nextHops', addresses: ['192.0.2.1', '192.0.2.254'] },
      {
        nextHops: [
          { address: '192.0.2.1', missed: 2 },
          { address: '192.0.2.254', missed: 0 },
        ],
      },
      [],
    ],
    [
      'a silent next hop no longer probed: up',
      { ...withMissed(healthy, '192.0.2.1', 3), down: v4Silent },
      { type: 'nextHops', addresses: ['2001:db8::1'] },
      { down: null, nextHops: [{ address: '2001:db8::1', missed: 0 }] },
      [{ do: 'up' }],
    ],
  ])('%s', (_name, state, event, expected, actions) => {
    const result = next(state, event);
    expect(result.state).toMatchObject(expected);
    expect(result.actions).toEqual(actions);
  });

  it('counts a run of misses from the start, and recovers on the first answer', () => {
    let state: LinkHealth = next(start, { type: 'nextHops', addresses: ['192.0.2.1'] }).state;
    const seen: LinkAction[] = [];
    for (const answered of [true, false, false, true, false, false, false, false, true]) {
      const result = next(state, probe('192.0.2.1', answered));
      state = result.state;
      seen.push(...result.actions);
    }
    expect(seen).toEqual([{ do: 'down' }, { do: 'up' }]);
    expect(state.down).toBeNull();
  });
});
