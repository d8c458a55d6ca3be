import { describe, expect, it } from 'vitest';
import { issueText } from './messages.ts';
import { optionsSchema } from './options.ts';
import { fieldErrorsOf, type FieldError } from './zod-issues.ts';

/** The field errors an operator would see for these options; [] when they are accepted. */
function errorsOf(input: unknown): FieldError[] {
  const result = optionsSchema.safeParse(input);
  return result.success ? [] : fieldErrorsOf(result.error);
}

const bgp = (parts: Record<string, unknown> = {}) => ({
  bgp: { asn: 65010, peers: [{ address: '192.0.2.1', asn: 65000 }], ...parts },
});

describe('Options › BGP', () => {
  it('is off (null) by default', () => {
    expect(optionsSchema.parse({}).bgp).toBeNull();
  });

  it('needs the ASN and one peer; the BFD timers default to 50 ms × 3', () => {
    expect(optionsSchema.parse(bgp()).bgp).toEqual({
      asn: 65010,
      peers: [{ address: '192.0.2.1', asn: 65000 }],
      bfdIntervalMs: 50,
      bfdMultiplier: 3,
    });
  });

  it('takes 4-byte AS numbers and IPv6 peers, stored in one spelling', () => {
    const parsed = optionsSchema.parse(
      bgp({ asn: 4294967295, peers: [{ address: '2001:DB8::0:1', asn: 4200000000 }] }),
    );
    expect(parsed.bgp?.asn).toBe(4294967295);
    expect(parsed.bgp?.peers[0]).toEqual({ address: '2001:db8::1', asn: 4200000000 });
  });

  it.each([
    ['bgp.asn', { asn: 0 }, 'BGP ASN must be a whole number from 1 to 4294967295'],
    ['bgp.asn', { asn: 4294967296 }, 'BGP ASN must be a whole number from 1 to 4294967295'],
    ['bgp.asn', { asn: '65010' }, 'BGP ASN must be a whole number from 1 to 4294967295'],
    [
      'bgp.bfdIntervalMs',
      { bfdIntervalMs: 49 },
      'BFD interval (ms) must be a whole number from 50 to 1000',
    ],
    [
      'bgp.bfdIntervalMs',
      { bfdIntervalMs: 1001 },
      'BFD interval (ms) must be a whole number from 50 to 1000',
    ],
    [
      'bgp.bfdMultiplier',
      { bfdMultiplier: 1 },
      'BFD multiplier must be a whole number from 2 to 10',
    ],
    [
      'bgp.bfdMultiplier',
      { bfdMultiplier: 11 },
      'BFD multiplier must be a whole number from 2 to 10',
    ],
    ['bgp.peers', { peers: [] }, 'BGP needs at least one peer (an upstream router)'],
    ['bgp.peers', { peers: 'r1' }, 'BGP peers must be a list of routers'],
  ])('refuses %s = %j, naming the field', (path, parts, message) => {
    expect(errorsOf(bgp(parts))).toEqual([{ path, message }]);
  });

  it('refuses a fifth peer', () => {
    const peers = [1, 2, 3, 4, 5].map((n) => ({ address: `192.0.2.${n}`, asn: 65000 }));
    expect(errorsOf(bgp({ peers }))).toEqual([
      { path: 'bgp.peers', message: 'BGP peers: at most 4 upstream routers' },
    ]);
  });

  it('names the peer row of a bad address or AS number, and a peer listed twice', () => {
    const errors = errorsOf(
      bgp({
        peers: [
          { address: '192.0.2.1', asn: 65000 },
          { address: 'router', asn: -1 },
        ],
      }),
    );
    expect(errors).toEqual([
      { path: 'bgp.peers.1.address', message: 'BGP peer address must be an IPv4 or IPv6 address' },
      {
        path: 'bgp.peers.1.asn',
        message: 'BGP peer ASN must be a whole number from 1 to 4294967295',
      },
    ]);
    expect(errors.map(issueText)).toEqual([
      'BGP peer 2: BGP peer address must be an IPv4 or IPv6 address',
      'BGP peer 2: BGP peer ASN must be a whole number from 1 to 4294967295',
    ]);
    expect(
      errorsOf(
        bgp({
          peers: [
            { address: '192.0.2.1', asn: 65000 },
            { address: '192.0.2.1', asn: 65001 },
          ],
        }),
      ),
    ).toEqual([{ path: 'bgp.peers.1.address', message: '192.0.2.1 is listed twice' }]);
  });

  it('refuses unknown fields (a peer password the design does not carry)', () => {
    expect(errorsOf(bgp({ password: 'x' }))[0]?.path).toBe('bgp.password');
  });
});
