import { z } from 'zod';
import { bgpSchema } from './bgp.ts';
import { choice, flag, intInRange, ipAddress, port } from './fields.ts';
import {
  AGENT_PORT_DEFAULT,
  CONNECT_TIMEOUT_S,
  CONNECT_TRY_INTERVAL_S,
  FORWARDED_PORTS,
  IMBALANCE_MIN_PPS,
  IMBALANCE_THRESHOLD_PCT,
  LEAST_LOAD_THRESHOLD,
  MATE_HEARTBEAT_PORT_DEFAULT,
  MATE_INTERVAL_MS,
  MATE_TIMEOUT_MIN_INTERVALS,
  MATE_TIMEOUT_MS,
  MONITOR_PROTOCOLS,
  MONITORING_PORT_DEFAULT,
  PACKET_RATE_LIMIT_PPS,
  SCTP_REJECT_OPTIONS,
  TCP_REJECT_OPTIONS,
} from './limits.ts';
import { MESSAGES } from './messages.ts';

export const ipfeNodeSchema = z.strictObject({
  address: ipAddress('IPFE address'),
  agentPort: port('Agent port').default(AGENT_PORT_DEFAULT),
});

const slot = ipfeNodeSchema.nullable().default(null);

const connectTimeout = z
  .int({ error: `Connect timeout must be a whole number of seconds` })
  .max(CONNECT_TIMEOUT_S.max, {
    error: `Connect timeout must be from ${CONNECT_TIMEOUT_S.min} to ${CONNECT_TIMEOUT_S.max} seconds`,
  })
  .check((ctx) => {
    if (ctx.value >= CONNECT_TIMEOUT_S.min) return;
    ctx.issues.push({
      code: 'custom',
      input: ctx.value,
      message:
        ctx.value === 1
          ? `Connect timeout: ${MESSAGES.connectTimeoutTooShort}`
          : `Connect timeout must be from ${CONNECT_TIMEOUT_S.min} to ${CONNECT_TIMEOUT_S.max} seconds`,
    });
  });

/** IPFE › Configuration › Options: node addresses and the global options, in the source's sections. */
export const optionsSchema = z
  .strictObject({
    ipfe: z.strictObject({ A1: slot, A2: slot, B1: slot, B2: slot }).prefault({}),
    // Inter-IPFE Synchronization
    mateHeartbeatPort: port('Mate heartbeat port').default(MATE_HEARTBEAT_PORT_DEFAULT),
    mateIntervalMs: intInRange('Mate beacon interval (ms)', MATE_INTERVAL_MS).default(
      MATE_INTERVAL_MS.default,
    ),
    mateTimeoutMs: intInRange('Mate timeout (ms)', MATE_TIMEOUT_MS).default(
      MATE_TIMEOUT_MS.default,
    ),
    // Traffic Forwarding
    tcpRejectOption: choice('TCP reject option', TCP_REJECT_OPTIONS).default('tcpReset'),
    sctpRejectOption: choice('SCTP reject option', SCTP_REJECT_OPTIONS).default('drop'),
    forwardedPorts: z
      .array(port('Forwarded port'), { error: 'Forwarded ports must be a list of TCP ports' })
      .min(FORWARDED_PORTS.min, { error: 'At least one forwarded port is needed' })
      .max(FORWARDED_PORTS.max, { error: `At most ${FORWARDED_PORTS.max} forwarded ports` })
      .default([...FORWARDED_PORTS.default]),
    // Application Server Monitoring
    monitorProtocol: choice('Monitoring protocol', MONITOR_PROTOCOLS).default('heartbeat'),
    monitoringPort: port('Monitoring port').default(MONITORING_PORT_DEFAULT),
    connectTimeoutS: connectTimeout.default(CONNECT_TIMEOUT_S.default),
    connectTryIntervalS: intInRange('Connect try interval (s)', CONNECT_TRY_INTERVAL_S).default(
      CONNECT_TRY_INTERVAL_S.default,
    ),
    // Packet Counting
    leastLoadThreshold: intInRange(
      'Least Load threshold (new connections/s)',
      LEAST_LOAD_THRESHOLD,
    ).default(LEAST_LOAD_THRESHOLD.default),
    imbalanceThresholdPct: intInRange('Imbalance threshold (%)', IMBALANCE_THRESHOLD_PCT).default(
      IMBALANCE_THRESHOLD_PCT.default,
    ),
    imbalanceMinPps: intInRange(
      'Imbalance detection throughput minimum (packets/s)',
      IMBALANCE_MIN_PPS,
    ).default(IMBALANCE_MIN_PPS.default),
    accounting: flag('Accounting').default(true),
    // Global Packet Rate Limit (the source's alarm 5013)
    packetRateLimitPps: intInRange(
      'Global packet rate limit (packets/s per port)',
      PACKET_RATE_LIMIT_PPS,
    ).default(PACKET_RATE_LIMIT_PPS.default),
    // BGP (decision 018): null until an active-active Target Set needs it
    bgp: bgpSchema.nullable().default(null),
  })
  .superRefine((options, ctx) => {
    // Out-of-range values already have their own message; comparing them would only add a
    // misleading one (an interval of 20000 ms would ask for a timeout above the 30000 ms maximum).
    const inRange = (value: number, range: { min: number; max: number }) =>
      value >= range.min && value <= range.max;
    if (
      inRange(options.mateIntervalMs, MATE_INTERVAL_MS) &&
      inRange(options.mateTimeoutMs, MATE_TIMEOUT_MS) &&
      options.mateTimeoutMs < MATE_TIMEOUT_MIN_INTERVALS * options.mateIntervalMs
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['mateTimeoutMs'],
        message: `Mate timeout must be at least ${MATE_TIMEOUT_MIN_INTERVALS} × the beacon interval (${MATE_TIMEOUT_MIN_INTERVALS * options.mateIntervalMs} ms)`,
      });
    }
    const seen = new Set<number>();
    options.forwardedPorts.forEach((p, i) => {
      if (seen.has(p)) {
        ctx.addIssue({
          code: 'custom',
          path: ['forwardedPorts', i],
          message: `Forwarded port ${p} is listed twice`,
        });
      }
      seen.add(p);
    });
  });

/** The reject choices as the Options page and the named-column CSV name them. */
export const REJECT_OPTION_LABELS = {
  tcpReset: 'TCP reset',
  drop: 'Drop',
  icmpHostUnreachable: 'ICMP host unreachable',
  icmpPortUnreachable: 'ICMP port unreachable',
  icmpAdminProhibited: 'ICMP administratively prohibited',
} as const satisfies Record<(typeof TCP_REJECT_OPTIONS)[number], string>;

/**
 * What each ICMP choice is on the wire: ICMP Destination Unreachable (type 3) to an IPv4 client,
 * ICMPv6 Destination Unreachable (type 1, RFC 4443) to an IPv6 one, with these codes.
 */
export const ICMP_REJECTS = {
  icmpHostUnreachable: { icmpCode: 1, icmpv6Code: 3, icmpv6Name: 'address unreachable' },
  icmpPortUnreachable: { icmpCode: 3, icmpv6Code: 4, icmpv6Name: 'port unreachable' },
  icmpAdminProhibited: {
    icmpCode: 13,
    icmpv6Code: 1,
    icmpv6Name: 'administratively prohibited',
  },
} as const;

export type TcpRejectOption = (typeof TCP_REJECT_OPTIONS)[number];
export type SctpRejectOption = (typeof SCTP_REJECT_OPTIONS)[number];
export type OptionsInput = z.input<typeof optionsSchema>;
export type Options = z.output<typeof optionsSchema>;
export type IpfeNode = z.output<typeof ipfeNodeSchema>;
