import { describe, expect, it } from 'vitest';
import {
  CONNECT_TIMEOUT_S,
  CONNECT_TRY_INTERVAL_S,
  FORWARDED_PORTS,
  IMBALANCE_MIN_PPS,
  IMBALANCE_THRESHOLD_PCT,
  LEAST_LOAD_THRESHOLD,
  MATE_INTERVAL_MS,
  MATE_TIMEOUT_MS,
  MONITOR_PROTOCOLS,
  PACKET_RATE_LIMIT_PPS,
  PORT,
  SCTP_REJECT_OPTIONS,
  TCP_REJECT_OPTIONS,
} from './limits.ts';
import { ipfeNodeSchema, optionsSchema } from './options.ts';
import { fieldErrorsOf, type FieldError } from './zod-issues.ts';

/** The field errors an operator would see for these options; [] when they are accepted. */
function errorsOf(input: unknown): FieldError[] {
  const result = optionsSchema.safeParse(input);
  return result.success ? [] : fieldErrorsOf(result.error);
}

const DEFAULTS = {
  ipfe: { A1: null, A2: null, B1: null, B2: null },
  mateHeartbeatPort: 19041,
  mateIntervalMs: 100,
  mateTimeoutMs: 3000,
  tcpRejectOption: 'tcpReset',
  sctpRejectOption: 'drop',
  forwardedPorts: [3868],
  monitorProtocol: 'heartbeat',
  monitoringPort: 9675,
  connectTimeoutS: 3,
  connectTryIntervalS: 1,
  leastLoadThreshold: 0,
  imbalanceThresholdPct: 20,
  imbalanceMinPps: 20_000,
  accounting: true,
  packetRateLimitPps: 500_000,
  bgp: null,
};

describe('options defaults', () => {
  it('an empty object takes every default of the Options page', () => {
    expect(optionsSchema.parse({})).toEqual(DEFAULTS);
  });

  it('a given value replaces only its own default', () => {
    expect(optionsSchema.parse({ monitoringPort: 9999 })).toEqual({
      ...DEFAULTS,
      monitoringPort: 9999,
    });
  });

  it('each parse gets its own forwarded-ports list', () => {
    const first = optionsSchema.parse({});
    first.forwardedPorts.push(5868);
    expect(optionsSchema.parse({}).forwardedPorts).toEqual([3868]);
  });

  it('an IPFE node needs only its address; the agent port defaults to 8701', () => {
    expect(optionsSchema.parse({ ipfe: { A1: { address: '10.0.0.201' } } }).ipfe).toEqual({
      A1: { address: '10.0.0.201', agentPort: 8701 },
      A2: null,
      B1: null,
      B2: null,
    });
  });
});

const integerFields = [
  {
    key: 'mateHeartbeatPort',
    range: PORT,
    message: `Mate heartbeat port must be a whole number from ${PORT.min} to ${PORT.max}`,
    context: {},
  },
  {
    key: 'mateIntervalMs',
    range: MATE_INTERVAL_MS,
    message: `Mate beacon interval (ms) must be a whole number from ${MATE_INTERVAL_MS.min} to ${MATE_INTERVAL_MS.max}`,
    // the longest timeout, so that the largest interval still satisfies timeout ≥ 3 × interval
    context: { mateTimeoutMs: MATE_TIMEOUT_MS.max },
  },
  {
    key: 'mateTimeoutMs',
    range: MATE_TIMEOUT_MS,
    message: `Mate timeout (ms) must be a whole number from ${MATE_TIMEOUT_MS.min} to ${MATE_TIMEOUT_MS.max}`,
    // the shortest interval, so that the shortest timeout satisfies timeout ≥ 3 × interval
    context: { mateIntervalMs: MATE_INTERVAL_MS.min },
  },
  {
    key: 'monitoringPort',
    range: PORT,
    message: `Monitoring port must be a whole number from ${PORT.min} to ${PORT.max}`,
    context: {},
  },
  {
    key: 'connectTryIntervalS',
    range: CONNECT_TRY_INTERVAL_S,
    message: `Connect try interval (s) must be a whole number from ${CONNECT_TRY_INTERVAL_S.min} to ${CONNECT_TRY_INTERVAL_S.max}`,
    context: {},
  },
  {
    key: 'leastLoadThreshold',
    range: LEAST_LOAD_THRESHOLD,
    message: `Least Load threshold (new connections/s) must be a whole number from ${LEAST_LOAD_THRESHOLD.min} to ${LEAST_LOAD_THRESHOLD.max}`,
    context: {},
  },
  {
    key: 'imbalanceThresholdPct',
    range: IMBALANCE_THRESHOLD_PCT,
    message: `Imbalance threshold (%) must be a whole number from ${IMBALANCE_THRESHOLD_PCT.min} to ${IMBALANCE_THRESHOLD_PCT.max}`,
    context: {},
  },
  {
    key: 'imbalanceMinPps',
    range: IMBALANCE_MIN_PPS,
    message: `Imbalance detection throughput minimum (packets/s) must be a whole number from ${IMBALANCE_MIN_PPS.min} to ${IMBALANCE_MIN_PPS.max}`,
    context: {},
  },
  {
    key: 'packetRateLimitPps',
    range: PACKET_RATE_LIMIT_PPS,
    message: `Global packet rate limit (packets/s per port) must be a whole number from ${PACKET_RATE_LIMIT_PPS.min} to ${PACKET_RATE_LIMIT_PPS.max}`,
    context: {},
  },
] as const;

describe.each(integerFields)('$key range', ({ key, range, message, context }) => {
  const at = (value: unknown) => errorsOf({ ...context, [key]: value });
  const refused = [{ path: key, message }];

  it(`refuses ${range.min - 1} (min − 1)`, () => expect(at(range.min - 1)).toEqual(refused));
  it(`accepts ${range.min} (min)`, () => {
    expect(at(range.min)).toEqual([]);
    expect(optionsSchema.parse({ ...context, [key]: range.min })[key]).toBe(range.min);
  });
  it(`accepts ${range.max} (max)`, () => {
    expect(at(range.max)).toEqual([]);
    expect(optionsSchema.parse({ ...context, [key]: range.max })[key]).toBe(range.max);
  });
  it(`refuses ${range.max + 1} (max + 1)`, () => expect(at(range.max + 1)).toEqual(refused));
  it('refuses a fraction', () => expect(at(range.min + 0.5)).toEqual(refused));
  it.each([String(range.min), null, true, [range.min], Number.NaN, Infinity])(
    'refuses %j',
    (value) => expect(at(value)).toEqual(refused),
  );
});

describe('connectTimeoutS', () => {
  const rangeMessage = `Connect timeout must be from ${CONNECT_TIMEOUT_S.min} to ${CONNECT_TIMEOUT_S.max} seconds`;

  it('refuses 1 s with the reason', () => {
    expect(errorsOf({ connectTimeoutS: 1 })).toEqual([
      {
        path: 'connectTimeoutS',
        message: 'Connect timeout: 1 s is refused (too short for reliable detection)',
      },
    ]);
  });

  it.each([0, -1])('refuses %i with the range', (value) => {
    expect(errorsOf({ connectTimeoutS: value })).toEqual([
      { path: 'connectTimeoutS', message: rangeMessage },
    ]);
  });

  it.each([CONNECT_TIMEOUT_S.min, CONNECT_TIMEOUT_S.max])('accepts %i', (value) => {
    expect(optionsSchema.parse({ connectTimeoutS: value }).connectTimeoutS).toBe(value);
  });

  it(`refuses ${CONNECT_TIMEOUT_S.max + 1}`, () => {
    expect(errorsOf({ connectTimeoutS: CONNECT_TIMEOUT_S.max + 1 })).toEqual([
      { path: 'connectTimeoutS', message: rangeMessage },
    ]);
  });

  it.each([2.5, '3', null, false])('refuses %j as not a whole number of seconds', (value) => {
    expect(errorsOf({ connectTimeoutS: value })).toEqual([
      { path: 'connectTimeoutS', message: 'Connect timeout must be a whole number of seconds' },
    ]);
  });
});

describe('IPFE nodes', () => {
  const agentPortMessage = `Agent port must be a whole number from ${PORT.min} to ${PORT.max}`;
  const withAgentPort = (agentPort: unknown) =>
    errorsOf({ ipfe: { A1: { address: '10.0.0.201', agentPort } } });

  it('agent port: min − 1 and max + 1 refused, min and max accepted', () => {
    expect(withAgentPort(PORT.min - 1)).toEqual([
      { path: 'ipfe.A1.agentPort', message: agentPortMessage },
    ]);
    expect(withAgentPort(PORT.min)).toEqual([]);
    expect(withAgentPort(PORT.max)).toEqual([]);
    expect(withAgentPort(PORT.max + 1)).toEqual([
      { path: 'ipfe.A1.agentPort', message: agentPortMessage },
    ]);
    expect(withAgentPort(8701.5)).toEqual([
      { path: 'ipfe.A1.agentPort', message: agentPortMessage },
    ]);
    expect(withAgentPort('8701')).toEqual([
      { path: 'ipfe.A1.agentPort', message: agentPortMessage },
    ]);
  });

  it('a configured slot needs an address', () => {
    expect(errorsOf({ ipfe: { B2: {} } })).toEqual([
      { path: 'ipfe.B2.address', message: 'IPFE address is required' },
    ]);
    expect(errorsOf({ ipfe: { B2: { address: '10.0.0' } } })).toEqual([
      { path: 'ipfe.B2.address', message: 'IPFE address must be an IPv4 or IPv6 address' },
    ]);
  });

  it('stores an IPv6 address in its canonical spelling', () => {
    expect(ipfeNodeSchema.parse({ address: ' 2001:0DB8::0201 ' }).address).toBe('2001:db8::201');
  });

  it('null marks an unconfigured slot', () => {
    expect(optionsSchema.parse({ ipfe: { A2: null } }).ipfe.A2).toBeNull();
  });

  it('there are only four slots', () => {
    expect(errorsOf({ ipfe: { C1: { address: '10.0.0.205' } } })).toEqual([
      { path: 'ipfe.C1', message: 'C1 is not a field here' },
    ]);
  });
});

describe('choices', () => {
  it.each(TCP_REJECT_OPTIONS)('tcpRejectOption accepts %s', (value) => {
    expect(optionsSchema.parse({ tcpRejectOption: value }).tcpRejectOption).toBe(value);
  });

  it.each(SCTP_REJECT_OPTIONS)('sctpRejectOption accepts %s', (value) => {
    expect(optionsSchema.parse({ sctpRejectOption: value }).sctpRejectOption).toBe(value);
  });

  it('SCTP has no reset: tcpReset is refused for it, naming its choices', () => {
    expect(errorsOf({ sctpRejectOption: 'tcpReset' })).toEqual([
      {
        path: 'sctpRejectOption',
        message:
          'SCTP reject option must be one of: drop, icmpHostUnreachable, icmpPortUnreachable, icmpAdminProhibited',
      },
    ]);
  });

  it.each(MONITOR_PROTOCOLS)('monitorProtocol accepts %s', (value) => {
    expect(optionsSchema.parse({ monitorProtocol: value }).monitorProtocol).toBe(value);
  });

  it('refuses anything else, listing the choices', () => {
    expect(errorsOf({ tcpRejectOption: 'reject', monitorProtocol: 'ping' })).toEqual([
      {
        path: 'tcpRejectOption',
        message:
          'TCP reject option must be one of: tcpReset, drop, icmpHostUnreachable, icmpPortUnreachable, icmpAdminProhibited',
      },
      {
        path: 'monitorProtocol',
        message: 'Monitoring protocol must be one of: heartbeat, tcpConnectOnly, disabled',
      },
    ]);
  });
});

describe('accounting', () => {
  it('is on unless turned off', () => {
    expect(optionsSchema.parse({ accounting: false }).accounting).toBe(false);
  });

  it.each(['false', 0, 1, null, 'disabled'])('refuses %j: it is true or false', (value) => {
    expect(errorsOf({ accounting: value })).toEqual([
      { path: 'accounting', message: 'Accounting must be true or false' },
    ]);
  });
});

describe('options saved before issue 27', () => {
  it('take the defaults of the options they lack', () => {
    const saved = { ...DEFAULTS, tcpRejectOption: 'drop', leastLoadThreshold: 40 } as Record<
      string,
      unknown
    >;
    for (const key of ['sctpRejectOption', 'imbalanceMinPps', 'accounting', 'packetRateLimitPps'])
      delete saved[key];
    expect(optionsSchema.parse(saved)).toEqual({
      ...DEFAULTS,
      tcpRejectOption: 'drop',
      leastLoadThreshold: 40,
    });
  });
});

describe('forwardedPorts', () => {
  const ports = (n: number) => Array.from({ length: n }, (_, i) => 3868 + i);

  it(`accepts ${FORWARDED_PORTS.min} to ${FORWARDED_PORTS.max} ports`, () => {
    expect(errorsOf({ forwardedPorts: ports(FORWARDED_PORTS.min) })).toEqual([]);
    expect(errorsOf({ forwardedPorts: ports(FORWARDED_PORTS.max) })).toEqual([]);
  });

  it('refuses an empty list', () => {
    expect(errorsOf({ forwardedPorts: [] })).toEqual([
      { path: 'forwardedPorts', message: 'At least one forwarded port is needed' },
    ]);
  });

  it(`refuses ${FORWARDED_PORTS.max + 1} ports`, () => {
    expect(errorsOf({ forwardedPorts: ports(FORWARDED_PORTS.max + 1) })).toEqual([
      { path: 'forwardedPorts', message: `At most ${FORWARDED_PORTS.max} forwarded ports` },
    ]);
  });

  it('checks every port against 1–65535, naming the row', () => {
    const message = 'Forwarded port must be a whole number from 1 to 65535';
    expect(errorsOf({ forwardedPorts: [PORT.min, PORT.max] })).toEqual([]);
    expect(errorsOf({ forwardedPorts: [3868, PORT.min - 1, PORT.max + 1, 1.5] })).toEqual([
      { path: 'forwardedPorts.1', message },
      { path: 'forwardedPorts.2', message },
      { path: 'forwardedPorts.3', message },
    ]);
  });

  it('refuses a port listed twice, at the second occurrence', () => {
    expect(errorsOf({ forwardedPorts: [3868, 5868, 3868] })).toEqual([
      { path: 'forwardedPorts.2', message: 'Forwarded port 3868 is listed twice' },
    ]);
  });

  it('refuses a single number instead of a list', () => {
    expect(errorsOf({ forwardedPorts: 3868 })).toEqual([
      { path: 'forwardedPorts', message: 'Forwarded ports must be a list of TCP ports' },
    ]);
  });
});

describe('mate timeout against the beacon interval', () => {
  it('accepts a timeout of exactly 3 × the interval', () => {
    expect(errorsOf({ mateIntervalMs: 100, mateTimeoutMs: 300 })).toEqual([]);
    expect(errorsOf({ mateIntervalMs: 1000, mateTimeoutMs: 3000 })).toEqual([]);
  });

  it('refuses a timeout 1 ms short of 3 × the interval', () => {
    expect(errorsOf({ mateIntervalMs: 100, mateTimeoutMs: 299 })).toEqual([
      {
        path: 'mateTimeoutMs',
        message: 'Mate timeout must be at least 3 × the beacon interval (300 ms)',
      },
    ]);
  });

  it('an out-of-range value gets only its range message, not a demand on the other field', () => {
    expect(errorsOf({ mateIntervalMs: 20000 })).toEqual([
      {
        path: 'mateIntervalMs',
        message: 'Mate beacon interval (ms) must be a whole number from 20 to 5000',
      },
    ]);
    expect(errorsOf({ mateTimeoutMs: 59 })).toEqual([
      {
        path: 'mateTimeoutMs',
        message: 'Mate timeout (ms) must be a whole number from 60 to 30000',
      },
    ]);
  });

  it('checks a longer interval against the default timeout', () => {
    expect(errorsOf({ mateIntervalMs: 1001 })).toEqual([
      {
        path: 'mateTimeoutMs',
        message: 'Mate timeout must be at least 3 × the beacon interval (3003 ms)',
      },
    ]);
  });
});

describe('unknown keys', () => {
  it('refuses a key the Options page does not have, naming it', () => {
    expect(errorsOf({ mateIntervallMs: 100 })).toEqual([
      { path: 'mateIntervallMs', message: 'mateIntervallMs is not a field here' },
    ]);
  });
});
