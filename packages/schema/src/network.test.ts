import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { INITIATOR_PORTS, NAME_LENGTH, PEER_NODE_GROUP_MEMBERS } from './limits.ts';
import {
  appServerInputSchema,
  appServerSchema,
  nonHostRole,
  peerNodeGroupSchema,
  xsiNetworkSchema,
} from './network.ts';
import { fieldErrorsOf, type FieldError } from './zod-issues.ts';

function errorsOf(schema: z.ZodType, input: unknown): FieldError[] {
  const result = schema.safeParse(input);
  return result.success ? [] : fieldErrorsOf(result.error);
}

describe('XSI network', () => {
  const nameMessage = "XSI network name must be 1–32 letters, digits, '-' or '_'";
  const cidrMessage = 'Network must be an IPv4 or IPv6 network in CIDR notation';
  const net = (fields: object) => ({ name: 'xsi-v4', cidr: '10.0.0.0/24', ...fields });

  it('accepts IPv4 and IPv6 networks', () => {
    expect(xsiNetworkSchema.parse(net({}))).toEqual({ name: 'xsi-v4', cidr: '10.0.0.0/24' });
    expect(xsiNetworkSchema.parse(net({ cidr: '2001:db8::/64' })).cidr).toBe('2001:db8::/64');
  });

  it(`name: ${NAME_LENGTH.min}–${NAME_LENGTH.max} characters of letters, digits, '-' and '_'`, () => {
    expect(errorsOf(xsiNetworkSchema, net({ name: 'a' }))).toEqual([]);
    expect(errorsOf(xsiNetworkSchema, net({ name: 'A_b-9'.padEnd(NAME_LENGTH.max, 'x') }))).toEqual(
      [],
    );
    for (const name of ['', 'x'.repeat(NAME_LENGTH.max + 1), 'xsi net', 'xsi.v4', 'xsi/4']) {
      expect(errorsOf(xsiNetworkSchema, net({ name }))).toEqual([
        { path: 'name', message: nameMessage },
      ]);
    }
  });

  it('a missing name or network is "required"', () => {
    expect(errorsOf(xsiNetworkSchema, {})).toEqual([
      { path: 'name', message: 'XSI network name is required' },
      { path: 'cidr', message: 'Network is required' },
    ]);
  });

  it.each(['10.0.0.0', '10.0.0.0/33', '2001:db8::/129', 'xsi', '10.0.0/24'])(
    'refuses %s as a network',
    (cidr) => {
      expect(errorsOf(xsiNetworkSchema, net({ cidr }))).toEqual([
        { path: 'cidr', message: cidrMessage },
      ]);
    },
  );

  it('refuses host bits, suggesting the network address', () => {
    expect(errorsOf(xsiNetworkSchema, net({ cidr: '10.0.0.1/24' }))).toEqual([
      { path: 'cidr', message: 'Network has host bits set: did you mean 10.0.0.0/24?' },
    ]);
    expect(errorsOf(xsiNetworkSchema, net({ cidr: '2001:0db8::1/64' }))).toEqual([
      { path: 'cidr', message: 'Network has host bits set: did you mean 2001:db8::/64?' },
    ]);
  });

  it('stores an IPv6 network in its canonical spelling', () => {
    expect(xsiNetworkSchema.parse(net({ cidr: ' 2001:0DB8:0000::/64 ' })).cidr).toBe(
      '2001:db8::/64',
    );
  });
});

describe('application server', () => {
  const nameMessage =
    "Application server name must be hostname-like: 1–63 letters, digits, '-' and '.', not starting or ending with '-' or '.'";
  const server = (fields: object) => ({ name: 'mp1', addresses: ['10.0.0.11'], ...fields });

  it('accepts a hostname-like name and one or two addresses', () => {
    expect(appServerInputSchema.parse(server({}))).toEqual({
      name: 'mp1',
      addresses: ['10.0.0.11'],
    });
    expect(
      appServerInputSchema.parse(
        server({ name: 'mp-1.site2', addresses: ['10.0.0.11', '2001:0db8::0011'] }),
      ),
    ).toEqual({ name: 'mp-1.site2', addresses: ['10.0.0.11', '2001:db8::11'] });
    expect(errorsOf(appServerInputSchema, server({ name: 'm'.repeat(63) }))).toEqual([]);
  });

  it.each(['', '-mp1', 'mp1-', '.mp1', 'mp1.', 'mp..1', 'mp_1', 'mp 1', 'm'.repeat(64)])(
    'refuses the name %j',
    (name) => {
      expect(errorsOf(appServerInputSchema, server({ name }))).toEqual([
        { path: 'name', message: nameMessage },
      ]);
    },
  );

  it('needs one address, takes at most two', () => {
    expect(errorsOf(appServerInputSchema, server({ addresses: [] }))).toEqual([
      { path: 'addresses', message: 'An application server needs an address' },
    ]);
    expect(
      errorsOf(
        appServerInputSchema,
        server({ addresses: ['10.0.0.11', '10.0.0.12', '10.0.0.13'] }),
      ),
    ).toEqual([
      {
        path: 'addresses',
        message: 'At most 2 addresses: a primary and a secondary (SCTP multihoming)',
      },
    ]);
    expect(errorsOf(appServerInputSchema, { name: 'mp1' })).toEqual([
      { path: 'addresses', message: 'Addresses is required' },
    ]);
  });

  it('names the bad address by its row', () => {
    expect(errorsOf(appServerInputSchema, server({ addresses: ['10.0.0.11', 'mp2'] }))).toEqual([
      { path: 'addresses.1', message: 'Address must be an IPv4 or IPv6 address' },
    ]);
  });

  it('the Initiator Port Range cannot be typed', () => {
    const typed = server({ initiatorPortRange: { start: 16384, end: 16895 } });
    expect(errorsOf(appServerInputSchema, typed)).toEqual([
      { path: 'initiatorPortRange', message: 'This field cannot be changed' },
    ]);
  });

  it(`a stored port range lies within ${INITIATOR_PORTS.start}–${INITIATOR_PORTS.end}`, () => {
    const stored = (start: number, end: number) =>
      errorsOf(appServerSchema, server({ initiatorPortRange: { start, end } }));
    expect(stored(INITIATOR_PORTS.start, INITIATOR_PORTS.start + 511)).toEqual([]);
    expect(stored(INITIATOR_PORTS.end - 511, INITIATOR_PORTS.end)).toEqual([]);
    expect(stored(INITIATOR_PORTS.start - 1, INITIATOR_PORTS.start + 510)).toEqual([
      {
        path: 'initiatorPortRange.start',
        message: 'Port range start must be a whole number from 16384 to 49151',
      },
    ]);
    expect(stored(INITIATOR_PORTS.end - 510, INITIATOR_PORTS.end + 1)).toEqual([
      {
        path: 'initiatorPortRange.end',
        message: 'Port range end must be a whole number from 16384 to 49151',
      },
    ]);
  });

  it('a stored port range is exactly one 512-port slice', () => {
    const stored = (start: number, end: number) =>
      errorsOf(appServerSchema, server({ initiatorPortRange: { start, end } }));
    const sliceMessage =
      'An Initiator Port Range is one slice of 512 ports starting at 16384 + k × 512';
    expect(stored(16896, 17407)).toEqual([]);
    expect(stored(16900, 17411)).toEqual([{ path: 'initiatorPortRange', message: sliceMessage }]);
    expect(stored(16384, 16384 + 1000)).toEqual([
      { path: 'initiatorPortRange', message: sliceMessage },
    ]);
  });
});

describe('peer node group', () => {
  const group = (members: unknown) => ({ name: 'peers-east', members });

  it('takes addresses and CIDRs, canonicalized', () => {
    expect(
      peerNodeGroupSchema.parse(group(['10.1.0.5', '10.2.0.0/16', '2001:0db8:0::0005'])),
    ).toEqual({ name: 'peers-east', members: ['10.1.0.5', '10.2.0.0/16', '2001:db8::5'] });
  });

  it(`holds ${PEER_NODE_GROUP_MEMBERS.min}–${PEER_NODE_GROUP_MEMBERS.max} members`, () => {
    const members = (n: number) =>
      Array.from({ length: n }, (_, i) => `10.3.${Math.floor(i / 256)}.${i % 256}`);
    expect(errorsOf(peerNodeGroupSchema, group([]))).toEqual([
      { path: 'members', message: 'A peer node group needs at least one member' },
    ]);
    expect(errorsOf(peerNodeGroupSchema, group(members(PEER_NODE_GROUP_MEMBERS.max)))).toEqual([]);
    expect(errorsOf(peerNodeGroupSchema, group(members(PEER_NODE_GROUP_MEMBERS.max + 1)))).toEqual([
      { path: 'members', message: 'At most 1024 members' },
    ]);
  });

  it('refuses a member that is neither an address nor a CIDR', () => {
    expect(errorsOf(peerNodeGroupSchema, group(['10.1.0.5', '10.2.0.0/40', 'east']))).toEqual([
      { path: 'members.1', message: 'Member must be an IPv4 or IPv6 address or CIDR' },
      { path: 'members.2', message: 'Member must be an IPv4 or IPv6 address or CIDR' },
    ]);
  });
});

describe('host addresses of an IPv4 network', () => {
  it("are neither the network's own address nor its broadcast address", () => {
    expect(nonHostRole('127.0.0.0/8', '127.0.0.0')).toBe('network');
    expect(nonHostRole('127.0.0.0/8', '127.255.255.255')).toBe('broadcast');
    expect(nonHostRole('10.1.2.0/24', '10.1.2.0')).toBe('network');
    expect(nonHostRole('10.1.2.0/24', '10.1.2.255')).toBe('broadcast');
    expect(nonHostRole('10.1.2.0/30', '10.1.2.3')).toBe('broadcast');
    for (const host of ['127.0.0.1', '127.255.255.254', '127.1.0.0', '127.0.255.255']) {
      expect(nonHostRole('127.0.0.0/8', host)).toBeNull();
    }
  });

  it('of a /31 or /32 are every address (RFC 3021), and IPv6 has no such rule', () => {
    expect(nonHostRole('10.1.2.0/31', '10.1.2.0')).toBeNull();
    expect(nonHostRole('10.1.2.0/31', '10.1.2.1')).toBeNull();
    expect(nonHostRole('10.1.2.7/32', '10.1.2.7')).toBeNull();
    expect(nonHostRole('2001:db8::/64', '2001:db8::')).toBeNull();
  });
});
