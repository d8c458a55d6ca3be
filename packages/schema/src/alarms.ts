/**
 * Every alarm an IPFE agent or the OAM raises. The numbers 5001–5013 and 5100–5103 are the source
 * product's own and mean here what they mean there, so that an operator's network-management
 * rules keyed by them keep working; the alarms of our own take numbers the source leaves unused,
 * 5150 and up (decision 025).
 */
export const ALARM = {
  backendUnavailable: 5001,
  addressConfigurationError: 5002,
  stateSyncRunError: 5003,
  forwardingRulesError: 5004,
  backendInStasis: 5005,
  outOfBalanceLow: 5007,
  outOfBalanceHigh: 5008,
  noAvailableServers: 5009,
  signalingHeartbeatTimeout: 5012,
  throttlingTraffic: 5013,
  trafficOverload: 5100,
  cpuOverload: 5101,
  diskBecomingFull: 5102,
  memoryOverload: 5103,
  configurationRejected: 5150,
  ipfeUnreachable: 5151,
  bgpSessionDown: 5152,
  tsaLinkDown: 5153,
} as const;

export type AlarmCode = (typeof ALARM)[keyof typeof ALARM];
export type AlarmSeverity = 'critical' | 'major' | 'minor';

export interface AlarmDefinition {
  readonly name: string;
  readonly severity: AlarmSeverity;
  /** `source`: the source product's alarm of that number; `own`: one of ours. */
  readonly origin: 'source' | 'own';
  /** Who raises it: an IPFE agent (and the OAM mirrors it), or the OAM itself. */
  readonly raisedBy: 'agent' | 'oam';
  /** What it means, in a line (docs/monitoring.md says more). */
  readonly meaning: string;
}

const source = (name: string, severity: AlarmSeverity, meaning: string): AlarmDefinition => ({
  name,
  severity,
  origin: 'source',
  raisedBy: 'agent',
  meaning,
});

export const ALARM_CATALOG: Readonly<Record<AlarmCode, AlarmDefinition>> = {
  5001: source('Backend Unavailable', 'major', 'an application server is offline'),
  5002: source(
    'Address Configuration Error',
    'critical',
    'a TSA cannot be served here: its address cannot be held, its port listened on, its protocol forwarded or it cannot be announced',
  ),
  5003: source(
    'State Sync Run Error',
    'major',
    'the channel that shares connection state with the mate is broken (conntrackd, or the direct path’s flow records)',
  ),
  5004: source(
    'IP Tables Configuration Error',
    'critical',
    'the forwarding rules could not be installed (nftables refused them)',
  ),
  5005: source(
    'Backend In Stasis',
    'minor',
    'a server reports stasis: no new connections go to it',
  ),
  5007: source(
    'Out of Balance: Low',
    'minor',
    'a server got markedly fewer new connections than its share in the last minute',
  ),
  5008: source(
    'Out of Balance: High',
    'minor',
    'a server got markedly more new connections than its share in the last minute',
  ),
  5009: source(
    'No Available Servers in Target Set',
    'critical',
    'no server of a Target Set can take new connections; refusals are counted',
  ),
  5012: source(
    'Signaling Interface Heartbeat Timeout',
    'critical',
    'no beacon from the mate for the mate timeout: this IPFE takes over its mate’s TSAs',
  ),
  5013: source(
    'Throttling Traffic',
    'critical',
    'packets above the Global Packet Rate Limit are dropped; cleared after 5 s without drops',
  ),
  5100: source(
    'Traffic Overload',
    'major',
    'the packet rate of a local port nears the Global Packet Rate Limit',
  ),
  5101: source('CPU Overload', 'major', 'the IPFE host’s CPU is busy above its threshold'),
  5102: source(
    'Disk Becoming Full',
    'major',
    'the agent’s state disk is filling above its threshold',
  ),
  5103: source('Memory Overload', 'major', 'the IPFE host’s memory is used above its threshold'),
  5150: {
    name: 'Configuration Rejected',
    severity: 'minor',
    origin: 'own',
    raisedBy: 'agent',
    meaning: 'an IPFE refused a pushed configuration and runs the one before',
  },
  5151: {
    name: 'IPFE Unreachable',
    severity: 'major',
    origin: 'own',
    raisedBy: 'oam',
    meaning: 'the OAM cannot reach an IPFE agent (three status polls missed)',
  },
  5152: {
    name: 'BGP Session Down',
    severity: 'major',
    origin: 'own',
    raisedBy: 'agent',
    meaning: 'an active-active IPFE’s BGP session with an upstream router is not established',
  },
  5153: {
    name: 'TSA Link Down',
    severity: 'major',
    origin: 'own',
    raisedBy: 'agent',
    meaning:
      'an IPFE’s TSA-facing link lost its carrier or its next hop stopped answering ARP/ND: it cannot serve, and its mate serves its TSAs',
  },
};

/**
 * The alarms earlier releases numbered otherwise (decision 025): by their number and name then,
 * what they are now. An alarm log, an outbox or an agent not yet upgraded may still carry them.
 */
export const RENUMBERED: readonly { code: number; name: string; now: AlarmCode }[] = [
  { code: 5100, name: 'Configuration Rejected', now: ALARM.configurationRejected },
  { code: 5101, name: 'IPFE Unreachable', now: ALARM.ipfeUnreachable },
  { code: 5020, name: 'BGP Session Down', now: ALARM.bgpSessionDown },
  { code: 5012, name: 'Mate Heartbeat Timeout', now: ALARM.signalingHeartbeatTimeout },
];

/** An alarm with the number, name and severity of this release (an earlier one's translated). */
export function currentAlarm<T extends { code: number; name: string; severity: string }>(
  alarm: T,
): T {
  const old = RENUMBERED.find((r) => r.code === alarm.code && r.name === alarm.name);
  if (!old) return alarm;
  const now = ALARM_CATALOG[old.now];
  return { ...alarm, code: old.now, name: now.name, severity: now.severity };
}
