import { describe, expect, it } from 'vitest';
import { notForwarded, protocolsOf } from './protocols.ts';

describe('the protocols of a Target Set a data path does not forward', () => {
  it.each([
    ['tcp', ['tcp'], ['tcp'], []],
    ['sctp', ['tcp'], ['sctp'], ['sctp']],
    ['both', ['tcp'], ['tcp', 'sctp'], ['sctp']],
    ['both', ['tcp', 'sctp'], ['tcp', 'sctp'], []],
    ['sctp', ['tcp', 'sctp'], ['sctp'], []],
  ] as const)('%s on a path forwarding %j', (protocols, forwards, all, missing) => {
    expect(protocolsOf(protocols)).toEqual(all);
    expect(notForwarded(protocols, forwards)).toEqual(missing);
  });
});
