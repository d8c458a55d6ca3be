/** Every limit and default of SPEC §2, named once. Ranges are inclusive. */

export const IPFE_SLOTS = ['A1', 'A2', 'B1', 'B2'] as const;
export const MATE_OF = { A1: 'A2', A2: 'A1', B1: 'B2', B2: 'B1' } as const;

export const PORT = { min: 1, max: 65535 } as const;
export const AGENT_PORT_DEFAULT = 8701;

export const MATE_HEARTBEAT_PORT_DEFAULT = 19041;
export const MATE_INTERVAL_MS = { min: 20, max: 5000, default: 100 } as const;
export const MATE_TIMEOUT_MS = { min: 60, max: 30000, default: 3000 } as const;
export const MATE_TIMEOUT_MIN_INTERVALS = 3;

/**
 * What a new TCP connection / SCTP association gets when no server can take it (the source's
 * RejectOption and SctpRejectOption). One choice for both families: an IPv6 client gets the
 * ICMPv6 equivalent of an ICMP choice (decision 024).
 */
export const TCP_REJECT_OPTIONS = [
  'tcpReset',
  'drop',
  'icmpHostUnreachable',
  'icmpPortUnreachable',
  'icmpAdminProhibited',
] as const;
export const SCTP_REJECT_OPTIONS = [
  'drop',
  'icmpHostUnreachable',
  'icmpPortUnreachable',
  'icmpAdminProhibited',
] as const;
export const FORWARDED_PORTS = { min: 1, max: 32, default: [3868] } as const;

export const MONITOR_PROTOCOLS = ['heartbeat', 'tcpConnectOnly', 'disabled'] as const;
export const MONITORING_PORT_DEFAULT = 9675;
export const CONNECT_TIMEOUT_S = { min: 2, max: 30, default: 3 } as const;
export const CONNECT_TRY_INTERVAL_S = { min: 1, max: 60, default: 1 } as const;

export const LEAST_LOAD_THRESHOLD = { min: 0, max: 1_000_000, default: 0 } as const;
export const IMBALANCE_THRESHOLD_PCT = { min: 1, max: 100, default: 20 } as const;
/** Imbalance Detection Throughput Minimum: no Out of Balance alarm below this rate (packets/s). */
export const IMBALANCE_MIN_PPS = { min: 0, max: 10_000_000, default: 20_000 } as const;
/** Global Packet Rate Limit: packets/s each local port takes; above it packets are dropped. */
export const PACKET_RATE_LIMIT_PPS = { min: 1_000, max: 10_000_000, default: 500_000 } as const;

export const XSI_NETWORKS_MAX = 16;
export const NAME_LENGTH = { min: 1, max: 32 } as const;

export const APP_SERVER_NAME_LENGTH = { min: 1, max: 63 } as const;
export const APP_SERVER_ADDRESSES = { min: 1, max: 2 } as const;
export const INITIATOR_PORTS = { start: 16384, end: 49151, sliceSize: 512 } as const;
/** (49151 − 16384 + 1) / 512 = 64 slices: one per application server. */
export const APP_SERVERS_MAX =
  (INITIATOR_PORTS.end - INITIATOR_PORTS.start + 1) / INITIATOR_PORTS.sliceSize;

export const PEER_NODE_GROUPS_MAX = 64;
export const PEER_NODE_GROUP_MEMBERS = { min: 1, max: 1024 } as const;

export const TARGET_SET_NUMBER = { min: 1, max: 32 } as const;
export const PROTOCOLS = ['tcp', 'sctp', 'both'] as const;
export const FAMILIES = ['ipv4', 'ipv6'] as const;
export const ALGORITHMS = ['hash', 'leastLoad'] as const;
/** How a Target Set's addresses are served: one active IPFE and its mate, or a group over BGP + ECMP. */
export const SERVING_MODES = ['activeStandby', 'activeActive'] as const;
/** The IPFEs of an active-active group: the four slots are this design's limit (decision 018). */
export const ACTIVE_ACTIVE_IPFES = { min: 2, max: 4 } as const;
export const DELETE_AGE_S = { min: 10, max: 3_110_400, default: 600 } as const;
export const FACTOR = { min: 0, max: 100, default: 50 } as const;
export const ALLOWED_DEVIATION = { min: 0, max: 50, default: 5 } as const;
export const PEER_NODE_THRESHOLD = { min: 0, max: 10, default: 1 } as const;
export const TARGET_SET_SERVERS = { min: 1, max: 32 } as const;
export const WEIGHT = { min: 0, max: 65535, default: 100 } as const;
export const DESCRIPTION_LENGTH = { max: 64 } as const;

/** Options › BGP (decision 018): the IPFEs' own AS, the upstream routers, BFD timers. */
export const ASN = { min: 1, max: 4294967295 } as const;
export const BGP_PEERS = { min: 1, max: 4 } as const;
export const BFD_INTERVAL_MS = { min: 50, max: 1000, default: 50 } as const;
export const BFD_MULTIPLIER = { min: 2, max: 10, default: 3 } as const;

export type IpfeSlot = (typeof IPFE_SLOTS)[number];
