import { describe, expect, it } from 'vitest';
import {
  AGENT_PORT_DEFAULT,
  ALLOWED_DEVIATION,
  APP_SERVERS_MAX,
  CONNECT_TIMEOUT_S,
  CONNECT_TRY_INTERVAL_S,
  DELETE_AGE_S,
  FACTOR,
  FORWARDED_PORTS,
  IMBALANCE_MIN_PPS,
  IMBALANCE_THRESHOLD_PCT,
  INITIATOR_PORTS,
  LEAST_LOAD_THRESHOLD,
  MATE_HEARTBEAT_PORT_DEFAULT,
  MATE_INTERVAL_MS,
  MATE_OF,
  MATE_TIMEOUT_MIN_INTERVALS,
  MATE_TIMEOUT_MS,
  MONITORING_PORT_DEFAULT,
  PACKET_RATE_LIMIT_PPS,
  PEER_NODE_THRESHOLD,
  PORT,
  SCTP_REJECT_OPTIONS,
  TARGET_SET_NUMBER,
  TARGET_SET_SERVERS,
  TCP_REJECT_OPTIONS,
  WEIGHT,
  XSI_NETWORKS_MAX,
} from './limits.ts';

// The other test files take their bounds from these constants; this file pins the constants to
// the numbers SPEC §2 states, so a drifting constant cannot drag the tests along with it.
describe('limits match SPEC §2', () => {
  it('IPFE options', () => {
    expect(MATE_OF).toEqual({ A1: 'A2', A2: 'A1', B1: 'B2', B2: 'B1' });
    expect(PORT).toEqual({ min: 1, max: 65535 });
    expect(AGENT_PORT_DEFAULT).toBe(8701);
    expect(MATE_HEARTBEAT_PORT_DEFAULT).toBe(19041);
    expect(MATE_INTERVAL_MS).toEqual({ min: 20, max: 5000, default: 100 });
    expect(MATE_TIMEOUT_MS).toEqual({ min: 60, max: 30000, default: 3000 });
    expect(MATE_TIMEOUT_MIN_INTERVALS).toBe(3);
    expect(FORWARDED_PORTS).toEqual({ min: 1, max: 32, default: [3868] });
    expect(MONITORING_PORT_DEFAULT).toBe(9675);
    expect(CONNECT_TIMEOUT_S).toEqual({ min: 2, max: 30, default: 3 });
    expect(CONNECT_TRY_INTERVAL_S).toEqual({ min: 1, max: 60, default: 1 });
    expect(LEAST_LOAD_THRESHOLD).toEqual({ min: 0, max: 1_000_000, default: 0 });
    expect(IMBALANCE_THRESHOLD_PCT).toEqual({ min: 1, max: 100, default: 20 });
  });

  it('the options of the source product (issue 27, decision 024)', () => {
    // Its RejectOption and SctpRejectOption choices, in our spelling.
    expect(TCP_REJECT_OPTIONS).toEqual([
      'tcpReset',
      'drop',
      'icmpHostUnreachable',
      'icmpPortUnreachable',
      'icmpAdminProhibited',
    ]);
    expect(SCTP_REJECT_OPTIONS).toEqual([
      'drop',
      'icmpHostUnreachable',
      'icmpPortUnreachable',
      'icmpAdminProhibited',
    ]);
    // The source's Global Packet Rate Limit default, counted per local port.
    expect(PACKET_RATE_LIMIT_PPS.default).toBe(500_000);
    expect(IMBALANCE_MIN_PPS.default).toBe(20_000);
  });

  it('networks and application servers', () => {
    expect(XSI_NETWORKS_MAX).toBe(16);
    expect(INITIATOR_PORTS).toEqual({ start: 16384, end: 49151, sliceSize: 512 });
    expect(APP_SERVERS_MAX).toBe(64);
  });

  it('Target Sets', () => {
    expect(TARGET_SET_NUMBER).toEqual({ min: 1, max: 32 });
    expect(DELETE_AGE_S).toEqual({ min: 10, max: 3_110_400, default: 600 });
    expect(FACTOR).toEqual({ min: 0, max: 100, default: 50 });
    expect(ALLOWED_DEVIATION).toEqual({ min: 0, max: 50, default: 5 });
    expect(PEER_NODE_THRESHOLD).toEqual({ min: 0, max: 10, default: 1 });
    expect(TARGET_SET_SERVERS).toEqual({ min: 1, max: 32 });
    expect(WEIGHT).toEqual({ min: 0, max: 65535, default: 100 });
  });
});
