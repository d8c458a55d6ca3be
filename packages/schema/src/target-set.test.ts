import { describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  ALLOWED_DEVIATION,
  DELETE_AGE_S,
  DESCRIPTION_LENGTH,
  FACTOR,
  IPFE_SLOTS,
  PEER_NODE_THRESHOLD,
  PROTOCOLS,
  TARGET_SET_NUMBER,
  TARGET_SET_SERVERS,
  WEIGHT,
} from './limits.ts';
import { leastLoadSchema, targetSetSchema } from './target-set.ts';
import { MESSAGES } from './messages.ts';
import { fieldErrorsOf, type FieldError } from './zod-issues.ts';

/** The least an operator types on Insert: number, family, the TSA and the IP list addresses. */
function minimalTargetSet(): Record<string, unknown> {
  return {
    number: 1,
    family: 'ipv4',
    primary: { address: '10.0.0.100' },
    servers: [{ address: '10.0.0.11' }, { address: '10.0.0.12' }],
  };
}

/** A copy of `input` with the value at a dot path replaced (objects on the way are copied). */
function withValue(input: Record<string, unknown>, path: string, value: unknown) {
  const copy = structuredClone(input);
  const keys = path.split('.');
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
  return copy;
}

function errorsOf(input: unknown): FieldError[] {
  const result = targetSetSchema.safeParse(input);
  return result.success ? [] : fieldErrorsOf(result.error);
}

describe('Target Set defaults', () => {
  it('a Target Set with only number, family, primary address and server addresses gets every default', () => {
    expect(targetSetSchema.parse(minimalTargetSet())).toEqual({
      number: 1,
      family: 'ipv4',
      protocols: 'both',
      disabled: false,
      initiatorSupport: false,
      deleteAgeSeconds: 600,
      algorithm: 'leastLoad',
      leastLoad: {
        mpsFactor: 50,
        connectionCountFactor: 50,
        allowedDeviation: 5,
        peerNodeAware: true,
        peerNodeThreshold: 1,
      },
      primary: { address: '10.0.0.100', activeIpfe: 'A1' },
      secondary: null,
      serving: 'activeStandby',
      servers: [
        { address: '10.0.0.11', secondaryAddress: null, description: '', weight: 100 },
        { address: '10.0.0.12', secondaryAddress: null, description: '', weight: 100 },
      ],
    });
  });

  it('a partial Least Load block keeps the defaults of the fields it omits', () => {
    const ts = targetSetSchema.parse(withValue(minimalTargetSet(), 'leastLoad', { mpsFactor: 1 }));
    expect(ts.leastLoad).toEqual({
      mpsFactor: 1,
      connectionCountFactor: 50,
      allowedDeviation: 5,
      peerNodeAware: true,
      peerNodeThreshold: 1,
    });
  });

  it('a secondary address needs its own Active IPFE: it has no default', () => {
    const input = withValue(minimalTargetSet(), 'secondary', { address: '10.0.0.101' });
    expect(errorsOf(input)).toEqual([
      { path: 'secondary.activeIpfe', message: 'Active IPFE for secondary address is required' },
    ]);
    expect(
      targetSetSchema.parse(
        withValue(minimalTargetSet(), 'secondary', { address: '10.0.0.101', activeIpfe: 'A2' }),
      ).secondary,
    ).toEqual({ address: '10.0.0.101', activeIpfe: 'A2' });
  });
});

const integerFields = [
  {
    path: 'number',
    range: TARGET_SET_NUMBER,
    message: `Target Set number must be a whole number from ${TARGET_SET_NUMBER.min} to ${TARGET_SET_NUMBER.max}`,
  },
  {
    path: 'deleteAgeSeconds',
    range: DELETE_AGE_S,
    message: `Delete Age (s) must be a whole number from ${DELETE_AGE_S.min} to ${DELETE_AGE_S.max}`,
  },
  {
    path: 'leastLoad.mpsFactor',
    range: FACTOR,
    message: `MPS Factor must be a whole number from ${FACTOR.min} to ${FACTOR.max}`,
  },
  {
    path: 'leastLoad.connectionCountFactor',
    range: FACTOR,
    message: `Connection Count Factor must be a whole number from ${FACTOR.min} to ${FACTOR.max}`,
  },
  {
    path: 'leastLoad.allowedDeviation',
    range: ALLOWED_DEVIATION,
    message: `Allowed Deviation must be a whole number from ${ALLOWED_DEVIATION.min} to ${ALLOWED_DEVIATION.max}`,
  },
  {
    path: 'leastLoad.peerNodeThreshold',
    range: PEER_NODE_THRESHOLD,
    message: `Peer Node Group Distribution Threshold must be a whole number from ${PEER_NODE_THRESHOLD.min} to ${PEER_NODE_THRESHOLD.max}`,
  },
  {
    path: 'servers.1.weight',
    range: WEIGHT,
    message: `Weighting must be a whole number from ${WEIGHT.min} to ${WEIGHT.max}`,
  },
] as const;

describe.each(integerFields)('$path range', ({ path, range, message }) => {
  const at = (value: unknown) => errorsOf(withValue(minimalTargetSet(), path, value));
  const refused = [{ path, message }];
  const parsedAt = (value: number) => {
    const parsed = targetSetSchema.parse(withValue(minimalTargetSet(), path, value));
    return path.split('.').reduce<unknown>((node, key) => (node as never)[key], parsed);
  };

  it(`refuses ${range.min - 1} (min − 1)`, () => expect(at(range.min - 1)).toEqual(refused));
  it(`accepts ${range.min} (min)`, () => expect(parsedAt(range.min)).toBe(range.min));
  it(`accepts ${range.max} (max)`, () => expect(parsedAt(range.max)).toBe(range.max));
  it(`refuses ${range.max + 1} (max + 1)`, () => expect(at(range.max + 1)).toEqual(refused));
  it('refuses a fraction', () => expect(at(range.min + 0.5)).toEqual(refused));
  it.each([String(range.max), null, false, {}])('refuses %j', (value) =>
    expect(at(value)).toEqual(refused),
  );
});

describe('required fields', () => {
  it('number, family, primary and the IP list are required, each named', () => {
    expect(errorsOf({})).toEqual([
      { path: 'number', message: 'Target Set number is required' },
      { path: 'family', message: 'Family is required' },
      { path: 'primary', message: 'Primary Public IP Address is required' },
      { path: 'servers', message: 'Target Set IP List is required' },
    ]);
  });

  it('the primary address and each server address are required', () => {
    const input = { ...minimalTargetSet(), primary: {}, servers: [{ weight: 5 }] };
    expect(errorsOf(input)).toEqual([
      { path: 'primary.address', message: 'Address is required' },
      { path: 'servers.0.address', message: 'IP Address is required' },
    ]);
  });
});

describe('choices', () => {
  it.each(PROTOCOLS)('protocols accepts %s', (value) => {
    expect(targetSetSchema.parse({ ...minimalTargetSet(), protocols: value }).protocols).toBe(
      value,
    );
  });

  it.each(ALGORITHMS)('algorithm accepts %s', (value) => {
    expect(targetSetSchema.parse({ ...minimalTargetSet(), algorithm: value }).algorithm).toBe(
      value,
    );
  });

  it.each(IPFE_SLOTS)('primary Active IPFE accepts %s', (slot) => {
    const input = withValue(minimalTargetSet(), 'primary.activeIpfe', slot);
    expect(targetSetSchema.parse(input).primary.activeIpfe).toBe(slot);
  });

  it('refuses values outside each list, naming the choices', () => {
    const input = {
      ...minimalTargetSet(),
      family: 'ipv5',
      protocols: 'udp',
      algorithm: 'roundRobin',
      primary: { address: '10.0.0.100', activeIpfe: 'C1' },
    };
    expect(errorsOf(input)).toEqual([
      { path: 'family', message: 'Family must be one of: ipv4, ipv6' },
      { path: 'protocols', message: 'Protocols must be one of: tcp, sctp, both' },
      { path: 'algorithm', message: 'Load Balance Algorithm must be one of: hash, leastLoad' },
      { path: 'primary.activeIpfe', message: 'Active IPFE must be one of: A1, A2, B1, B2' },
    ]);
  });

  it('refuses a flag that is not a boolean', () => {
    const input = {
      ...minimalTargetSet(),
      disabled: 'yes',
      initiatorSupport: 1,
      leastLoad: { peerNodeAware: 'true' },
    };
    expect(errorsOf(input)).toEqual([
      { path: 'disabled', message: 'Disable must be true or false' },
      { path: 'initiatorSupport', message: 'Initiator Connection Support must be true or false' },
      {
        path: 'leastLoad.peerNodeAware',
        message: 'Peer Node Aware Least Load must be true or false',
      },
    ]);
  });
});

describe('Target Set IP List', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ address: `10.0.1.${i + 1}` }));

  it(`holds ${TARGET_SET_SERVERS.min}–${TARGET_SET_SERVERS.max} rows`, () => {
    expect(errorsOf({ ...minimalTargetSet(), servers: rows(TARGET_SET_SERVERS.min) })).toEqual([]);
    expect(errorsOf({ ...minimalTargetSet(), servers: rows(TARGET_SET_SERVERS.max) })).toEqual([]);
    expect(errorsOf({ ...minimalTargetSet(), servers: rows(0) })).toEqual([
      { path: 'servers', message: 'The Target Set IP List needs at least one server' },
    ]);
    expect(errorsOf({ ...minimalTargetSet(), servers: rows(TARGET_SET_SERVERS.max + 1) })).toEqual([
      { path: 'servers', message: 'The Target Set IP List holds at most 32 servers' },
    ]);
  });

  it(`description: up to ${DESCRIPTION_LENGTH.max} letters, digits, spaces, '-', '_' and '.'`, () => {
    const describe = (description: unknown) =>
      errorsOf(withValue(minimalTargetSet(), 'servers.0.description', description));
    const at = (message: string) => [{ path: 'servers.0.description', message }];
    const only = "only letters, digits, spaces, '-', '_' and '.' are allowed";
    expect(describe('')).toEqual([]);
    expect(describe('DA-MP 1_site.a')).toEqual([]);
    expect(describe('x'.repeat(DESCRIPTION_LENGTH.max))).toEqual([]);
    expect(describe('x'.repeat(DESCRIPTION_LENGTH.max + 1))).toEqual(
      at('Description must be at most 64 characters'),
    );
    // The characters refused are named, each once.
    expect(describe('a,b;c')).toEqual(at(`Description must not contain ',' or ';': ${only}`));
    expect(describe('mp1/site')).toEqual(at(`Description must not contain '/': ${only}`));
    expect(describe('a,,b')).toEqual(at(`Description must not contain ',': ${only}`));
    expect(describe('ü')).toEqual(at(`Description must not contain 'ü': ${only}`));
    expect(describe(7)).toEqual(
      at("Description must be at most 64 letters, digits, spaces, '-', '_' or '.'"),
    );
  });

  it.each([
    ['[::1]', 'IP Address must be written without brackets: ::1'],
    ['fe80::1%eth0', 'IP Address has a zone index (%eth0): zone indexes are not allowed'],
    [
      '::ffff:127.0.0.110',
      'IP Address must be the IPv4 form 127.0.0.110: ::ffff:127.0.0.110 is an IPv4-mapped IPv6 address',
    ],
    ['mp1', 'IP Address must be an IPv4 or IPv6 address'],
  ])('an address spelt %s is refused saying what to write', (typed, message) => {
    expect(errorsOf(withValue(minimalTargetSet(), 'servers.0.address', typed))).toEqual([
      { path: 'servers.0.address', message },
    ]);
  });

  it('addresses are checked and stored canonically', () => {
    const input = {
      ...minimalTargetSet(),
      family: 'ipv6',
      primary: { address: '2001:0DB8:0000::0100' },
      servers: [{ address: '2001:db8:0:0::0011', secondaryAddress: ' 2001:db8::0:0:12 ' }],
    };
    const ts = targetSetSchema.parse(input);
    expect(ts.primary.address).toBe('2001:db8::100');
    expect(ts.servers[0]).toMatchObject({
      address: '2001:db8::11',
      secondaryAddress: '2001:db8::12',
    });
    expect(errorsOf(withValue(minimalTargetSet(), 'servers.0.address', 'mp1'))).toEqual([
      { path: 'servers.0.address', message: 'IP Address must be an IPv4 or IPv6 address' },
    ]);
  });
});

describe('MPS Factor and Connection Count Factor', () => {
  it('refuses both zero, at the MPS Factor', () => {
    const input = withValue(minimalTargetSet(), 'leastLoad', {
      mpsFactor: 0,
      connectionCountFactor: 0,
    });
    expect(errorsOf(input)).toEqual([
      {
        path: 'leastLoad.mpsFactor',
        message: 'MPS Factor and Connection Count Factor cannot both be 0',
      },
    ]);
  });

  it('says so beside the other fields’ issues', () => {
    const input = withValue(
      withValue(minimalTargetSet(), 'leastLoad', { mpsFactor: 0, connectionCountFactor: 0 }),
      'primary.address',
      'tsa',
    );
    expect(errorsOf(input)).toEqual([
      { path: 'primary.address', message: 'Address must be an IPv4 or IPv6 address' },
      { path: 'leastLoad.mpsFactor', message: MESSAGES.factorsBothZero },
    ]);
  });

  it('with Hash, keeps 0 / 0 as typed: the pair rule is Least Load’s', () => {
    const input = withValue(withValue(minimalTargetSet(), 'algorithm', 'hash'), 'leastLoad', {
      mpsFactor: 0,
      connectionCountFactor: 0,
    });
    expect(targetSetSchema.parse(input).leastLoad).toMatchObject({
      mpsFactor: 0,
      connectionCountFactor: 0,
    });
  });

  it('with Hash, still checks the ranges', () => {
    const input = withValue(withValue(minimalTargetSet(), 'algorithm', 'hash'), 'leastLoad', {
      mpsFactor: 101,
      connectionCountFactor: 0,
    });
    expect(errorsOf(input)).toEqual([
      {
        path: 'leastLoad.mpsFactor',
        message: `MPS Factor must be a whole number from ${FACTOR.min} to ${FACTOR.max}`,
      },
    ]);
  });

  it('accepts one of them zero', () => {
    expect(leastLoadSchema.parse({ mpsFactor: 0, connectionCountFactor: 7 })).toMatchObject({
      mpsFactor: 0,
      connectionCountFactor: 7,
    });
    expect(leastLoadSchema.parse({ mpsFactor: 7, connectionCountFactor: 0 })).toMatchObject({
      mpsFactor: 7,
      connectionCountFactor: 0,
    });
  });

  it('keeps the typed values: normalization happens on commit, not in the form', () => {
    expect(leastLoadSchema.parse({ mpsFactor: 1, connectionCountFactor: 2 })).toMatchObject({
      mpsFactor: 1,
      connectionCountFactor: 2,
    });
  });
});

describe('derived and unknown keys', () => {
  it('answers derived fields with "This field cannot be changed"', () => {
    const input = {
      ...minimalTargetSet(),
      primary: { address: '10.0.0.100', standbyIpfe: 'A2' },
      servers: [
        {
          address: '10.0.0.11',
          chancePct: 100,
          initiatorPortRange: { start: 16384, end: 16895 },
          appServer: 'mp1',
        },
      ],
    };
    expect(errorsOf(input)).toEqual([
      { path: 'primary.standbyIpfe', message: 'This field cannot be changed' },
      { path: 'servers.0.chancePct', message: 'This field cannot be changed' },
      { path: 'servers.0.initiatorPortRange', message: 'This field cannot be changed' },
      { path: 'servers.0.appServer', message: 'This field cannot be changed' },
    ]);
  });

  it('refuses an unknown key, naming it', () => {
    expect(errorsOf({ ...minimalTargetSet(), name: 'diameter' })).toEqual([
      { path: 'name', message: 'name is not a field here' },
    ]);
    expect(errorsOf(withValue(minimalTargetSet(), 'leastLoad.fm', 50))).toEqual([
      { path: 'leastLoad.fm', message: 'fm is not a field here' },
    ]);
  });
});
