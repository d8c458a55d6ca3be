import { describe, expect, it } from 'vitest';
import { leastLoadSection, openUnderHash } from './least-load-section';

describe('the Least Load section', () => {
  it.each([
    // open before, Hash, a field out of range → open after
    [false, false, false, false],
    [true, false, true, false], // Least Load chosen again: closed for the next Hash
    [false, true, false, false],
    [false, true, true, true], // opens under Hash to let the operator correct the value
    [true, true, false, true], // and stays open once the value is right again
  ])('open %s, Hash %s, out of range %s: open %s', (open, hash, invalid, after) => {
    expect(openUnderHash(open, hash, invalid)).toBe(after);
  });

  const HASH = 'Not used by the Hash algorithm';
  const KEPT = 'Not used by the Hash algorithm, but kept as typed: correct the value marked below';
  it.each([
    [{ hash: true, open: false, invalid: false }, 'heartbeat', true, HASH],
    [{ hash: true, open: false, invalid: true }, 'heartbeat', false, KEPT],
    [{ hash: true, open: true, invalid: false }, 'heartbeat', false, KEPT],
    [{ hash: false, open: false, invalid: true }, 'heartbeat', false, undefined],
    [
      { hash: false, open: false, invalid: false },
      'tcpConnectOnly',
      false,
      'Least Load needs Application Server Monitoring set to Heartbeat; it is now tcpConnectOnly.',
    ],
    [{ hash: true, open: false, invalid: false }, 'disabled', true, HASH],
  ] as const)('%o, monitoring %s: locked %s, says %s', (state, monitorProtocol, locked, note) => {
    expect(leastLoadSection({ ...state, monitorProtocol })).toEqual({ locked, note });
  });
});
