import { describe, expect, it } from 'vitest';
import {
  configuredEvent,
  initialMateLiveness,
  next,
  type MateAction,
  type MateEvent,
  type MateLiveness,
} from './mate-liveness.ts';
import { testDocument } from './testing.ts';

const start = initialMateLiveness(0, 2000);
/** A mate configured at 192.0.2.12 with a 600 ms timeout, at t = 0. */
const watched: MateLiveness = { ...start, address: '192.0.2.12', timeoutMs: 600 };
const heard: MateLiveness = { ...watched, boot: 'b1', heardAt: 1000 };
const dead: MateLiveness = { ...heard, alive: false };
const unable: MateLiveness = { ...heard, canServe: false };

const configured = (address: string | null, timeoutMs: number | null): MateEvent => ({
  type: 'configured',
  address,
  timeoutMs,
});

describe('mate liveness', () => {
  it.each<[string, MateLiveness, MateEvent, number, Partial<MateLiveness>, MateAction[]]>([
    [
      'a mate configured gets a whole timeout from now',
      start,
      configured('192.0.2.12', 600),
      500,
      { address: '192.0.2.12', timeoutMs: 600, heardAt: 500, alive: true },
      [],
    ],
    [
      'the same mate configured again keeps its last beacon time',
      heard,
      configured('192.0.2.12', 900),
      1500,
      { timeoutMs: 900, heardAt: 1000 },
      [],
    ],
    [
      'a mate moved gets a whole timeout again',
      heard,
      configured('192.0.2.13', 600),
      1500,
      { address: '192.0.2.13', heardAt: 1500 },
      [],
    ],
    [
      'the first beacon: the data path forgets what it told the mate',
      watched,
      { type: 'beacon', boot: 'b1', canServe: true },
      100,
      { boot: 'b1', heardAt: 100, alive: true },
      [{ do: 'first' }, { do: 'heard' }],
    ],
    [
      'a beacon of the same boot',
      heard,
      { type: 'beacon', boot: 'b1', canServe: true },
      1100,
      { heardAt: 1100 },
      [{ do: 'heard' }],
    ],
    [
      'a beacon of another boot: the mate restarted',
      heard,
      { type: 'beacon', boot: 'b2', canServe: true },
      1100,
      { boot: 'b2', heardAt: 1100 },
      [{ do: 'restarted' }, { do: 'heard' }],
    ],
    [
      'a beacon of a dead mate: back, and the kept TSAs reasserted after the hold-off',
      dead,
      { type: 'beacon', boot: 'b1', canServe: true },
      5000,
      { alive: true, heardAt: 5000 },
      [{ do: 'back', reassertAfterMs: 2300 }, { do: 'heard' }],
    ],
    [
      'a dead mate that restarted meanwhile: restarted, not back',
      dead,
      { type: 'beacon', boot: 'b2', canServe: true },
      5000,
      { alive: true, boot: 'b2' },
      [{ do: 'restarted' }, { do: 'heard' }],
    ],
    [
      'a beacon saying the mate cannot serve: its TSAs come here',
      heard,
      { type: 'beacon', boot: 'b1', canServe: false },
      1100,
      { canServe: false, alive: true, heardAt: 1100 },
      [{ do: 'heard' }, { do: 'unable' }],
    ],
    [
      'further beacons saying so change nothing',
      unable,
      { type: 'beacon', boot: 'b1', canServe: false },
      1200,
      { canServe: false },
      [{ do: 'heard' }],
    ],
    [
      'a beacon saying the mate can serve again: it takes its TSAs back after the hold-off',
      unable,
      { type: 'beacon', boot: 'b1', canServe: true },
      1200,
      { canServe: true },
      [{ do: 'heard' }, { do: 'able' }],
    ],
    [
      'a dead mate heard again, unable to serve: back, and unable',
      dead,
      { type: 'beacon', boot: 'b1', canServe: false },
      5000,
      { alive: true, canServe: false },
      [{ do: 'back', reassertAfterMs: 2300 }, { do: 'heard' }, { do: 'unable' }],
    ],
    [
      'a mate restarted unable to serve',
      heard,
      { type: 'beacon', boot: 'b2', canServe: false },
      1100,
      { boot: 'b2', canServe: false },
      [{ do: 'restarted' }, { do: 'heard' }, { do: 'unable' }],
    ],
    [
      'silence keeps what the mate said last',
      unable,
      { type: 'tick' },
      1700,
      { alive: false, canServe: false },
      [{ do: 'dead', timeoutMs: 600 }],
    ],
    ['silent for less than the timeout', heard, { type: 'tick' }, 1599, { alive: true }, []],
    [
      'silent for the timeout: dead',
      heard,
      { type: 'tick' },
      1600,
      { alive: false },
      [{ do: 'dead', timeoutMs: 600 }],
    ],
    ['dead once only', dead, { type: 'tick' }, 9000, { alive: false }, []],
    ['no mate configured: never dead', start, { type: 'tick' }, 1e9, { alive: true }, []],
    [
      'never heard: dead a timeout after it was configured',
      watched,
      { type: 'tick' },
      600,
      { alive: false },
      [{ do: 'dead', timeoutMs: 600 }],
    ],
  ])('%s', (_name, state, event, now, expected, actions) => {
    const result = next(state, event, now);
    expect(result.state).toMatchObject(expected);
    expect(result.actions).toEqual(actions);
  });

  it.each([
    ['A1', { address: '192.0.2.12', timeoutMs: 600 }],
    ['B1', { address: null, timeoutMs: null }],
  ] as const)('reads the mate of %s from the options', (slot, expected) => {
    const options = testDocument().config.options;
    const mate = slot === 'A1' ? 'A2' : 'B2';
    expect(configuredEvent(options, mate)).toEqual({ type: 'configured', ...expected });
  });
});
