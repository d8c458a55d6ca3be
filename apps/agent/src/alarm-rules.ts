import { inStasis, type EngineStatus } from '@ipfe/engine';
import {
  ALARM,
  ALARM_CATALOG,
  activeActiveGroupOf,
  formatHostPort,
  type AlarmCode,
  type AlarmSeverity,
  type AgentBgpStatus,
  type ConfigDocument,
  type DataPath,
  type ForwardedProtocol,
  type IpfeSlot,
} from '@ipfe/schema';
import { hostAlarm, type HostReadings, type HostThresholds } from './host-resources.ts';
import { notForwarded, protocolsOf } from './protocols.ts';
import { overloadedPorts, throttledPorts, type PortLoad } from './throttle-watch.ts';

/** The alarms an agent raises (the OAM raises IPFE Unreachable itself): the schema's catalog. */
export type AgentAlarmCode = Exclude<AlarmCode, typeof ALARM.ipfeUnreachable>;
export const ALARMS = ALARM_CATALOG;
export type Severity = AlarmSeverity;

/** One alarm a rule wants raised now: per (code, Target Set, server). */
export interface WantedAlarm {
  text: string;
  targetSet?: number;
  server?: string;
}

/** What the agent knows at an alarm evaluation (once a second), read from its parts. */
export interface AlarmInputs {
  slot: IpfeSlot;
  document: ConfigDocument;
  status: EngineStatus;
  /** The Target Sets of the TSAs this node serves now. */
  ownedSets: ReadonlySet<number>;
  dataPath: DataPath;
  forwards: readonly ForwardedProtocol[];
  /** The BGP speaker (direct path only), or null. */
  bgp: { failure: string | null; downSessions: AgentBgpStatus['sessions'] } | null;
  /** The TSA-facing link while it is down (link-health.ts), or null. */
  linkDown: { device: string; reason: string } | null;
  /** TSAs the address holder cannot put on the interface. */
  addressFailures: readonly { address: string; error: string }[];
  /** TSA:port pairs the data path cannot listen on. */
  bindFailures: readonly { tsa: string; port: number; targetSet: number; error: string }[];
  /** Why the data path's forwarding rules are not installed (nft refused them), or null. */
  rulesError: string | null;
  /** Why connection state is not shared with the mate (conntrackd, flow records), or null. */
  stateSync: string | null;
  /** The BalanceWatch's verdict over the last minute: servers above or below their share. */
  outOfBalance: readonly (WantedAlarm & { side: 'high' | 'low' })[];
  /** The host's own load (null: not read yet), its thresholds, and the codes active now. */
  host: { readings: HostReadings; thresholds: HostThresholds } | null;
  /** Each forwarded port's packet rate, where the data path enforces the rate limit. */
  ports: readonly PortLoad[];
  /** Whether an alarm is active now (a rule that clears lower than it raises asks). */
  isActive(code: AlarmCode, server?: string): boolean;
  /** Monotonic ms. */
  now: number;
}

/**
 * An alarm raised while its cause holds: `wanted` names every alarm of `code` that should be
 * active now; the agent raises those and clears every other one of that code.
 */
export interface AlarmRule {
  code: AgentAlarmCode;
  wanted(inputs: AlarmInputs): WantedAlarm[];
}

/** The servers of the enabled Target Sets this node serves, each with its Target Set. */
function ownedServers({ status, ownedSets }: AlarmInputs) {
  return status.targetSets
    .filter((ts) => ownedSets.has(ts.number) && !ts.disabled)
    .flatMap((ts) => ts.servers.map((s) => ({ ts: ts.number, ...s })));
}

/** Why this node announces none of its active-active Target Sets, or null. */
function activeActiveFailure(inputs: AlarmInputs): string | null {
  if (!inputs.bgp)
    return `only the direct data path serves it (this node runs the ${inputs.dataPath} path)`;
  if (!inputs.document.config.options.bgp) return 'Options › BGP is not configured';
  return inputs.bgp.failure;
}

const label = (protocols: readonly string[]) => protocols.map((p) => p.toUpperCase()).join('+');

/** In the order the agent has always evaluated them (the active list keeps that order). */
export const ALARM_RULES: readonly AlarmRule[] = [
  {
    code: ALARM.bgpSessionDown,
    wanted: ({ bgp }) =>
      (bgp?.downSessions ?? []).map((s) => ({
        server: s.peer,
        text: `BGP session to ${s.peer} is ${s.state} (BFD ${s.bfd})`,
      })),
  },
  {
    code: ALARM.backendUnavailable,
    wanted: (inputs) =>
      ownedServers(inputs)
        .filter((s) => s.state === 'offline')
        .map((s) => ({
          targetSet: s.ts,
          server: s.address,
          text: `Application server ${s.address} is offline`,
        })),
  },
  {
    code: ALARM.backendInStasis,
    wanted: (inputs) =>
      ownedServers(inputs)
        .filter((s) => inStasis(s.state))
        .map((s) => ({
          targetSet: s.ts,
          server: s.address,
          text: `Application server ${s.address} reports ${s.state}`,
        })),
  },
  {
    code: ALARM.noAvailableServers,
    wanted: ({ status, ownedSets }) =>
      status.targetSets
        .filter((ts) => ownedSets.has(ts.number) && !ts.disabled && ts.activeBindings === 0)
        .map((ts) => ({
          targetSet: ts.number,
          text: `No server of Target Set ${ts.number} can take new connections`,
        })),
  },
  {
    code: ALARM.addressConfigurationError,
    wanted: (inputs) => {
      const { document, ownedSets, forwards, slot } = inputs;
      const targetSets = document.config.targetSets;
      // A Target Set none of whose protocols this data path forwards (SCTP only, user space).
      const unforwarded = targetSets.filter(
        (ts) =>
          ownedSets.has(ts.number) &&
          notForwarded(ts.protocols, forwards).length === protocolsOf(ts.protocols).length,
      );
      const activeActive = targetSets.filter(
        (ts) => !ts.disabled && activeActiveGroupOf(ts)?.includes(slot),
      );
      const why = activeActive.length > 0 ? activeActiveFailure(inputs) : null;
      return [
        ...inputs.addressFailures.map((f) => ({
          server: f.address,
          text: `Cannot hold TSA ${f.address} on the interface (${f.error})`,
        })),
        ...inputs.bindFailures.map((f) => ({
          targetSet: f.targetSet,
          server: formatHostPort(f.tsa, f.port),
          text: `Cannot listen on ${formatHostPort(f.tsa, f.port)} (${f.error})`,
        })),
        ...unforwarded.map((ts) => {
          const what = label(protocolsOf(ts.protocols));
          return {
            targetSet: ts.number,
            text: `Target Set ${ts.number} is ${what} only: ${what} is not forwarded on this node`,
          };
        }),
        ...(why
          ? activeActive.map((ts) => ({
              targetSet: ts.number,
              text: `Target Set ${ts.number} is active-active but nothing is announced: ${why}`,
            }))
          : []),
      ];
    },
  },
  {
    code: ALARM.forwardingRulesError,
    wanted: ({ rulesError }) =>
      rulesError ? [{ text: `The forwarding rules could not be installed: ${rulesError}` }] : [],
  },
  {
    code: ALARM.stateSyncRunError,
    wanted: ({ stateSync }) =>
      stateSync ? [{ text: `Connection state is not shared with the mate: ${stateSync}` }] : [],
  },
  {
    code: ALARM.outOfBalanceHigh,
    wanted: ({ outOfBalance }) => outOfBalance.filter((o) => o.side === 'high').map(withoutSide),
  },
  {
    code: ALARM.outOfBalanceLow,
    wanted: ({ outOfBalance }) => outOfBalance.filter((o) => o.side === 'low').map(withoutSide),
  },
  {
    code: ALARM.trafficOverload,
    wanted: ({ ports, document, isActive }) =>
      overloadedPorts(ports, document.config.options.packetRateLimitPps, (server) =>
        isActive(ALARM.trafficOverload, server),
      ),
  },
  {
    code: ALARM.throttlingTraffic,
    wanted: ({ ports, document, now }) =>
      throttledPorts(ports, document.config.options.packetRateLimitPps, now),
  },
  {
    code: ALARM.cpuOverload,
    wanted: (inputs) => hostAlarm('cpu', ALARM.cpuOverload, inputs),
  },
  {
    code: ALARM.memoryOverload,
    wanted: (inputs) => hostAlarm('memory', ALARM.memoryOverload, inputs),
  },
  {
    code: ALARM.diskBecomingFull,
    wanted: (inputs) => hostAlarm('disk', ALARM.diskBecomingFull, inputs),
  },
  {
    code: ALARM.tsaLinkDown,
    wanted: ({ linkDown }) =>
      linkDown
        ? [{ text: `The TSA-facing link ${linkDown.device} is down: ${linkDown.reason}` }]
        : [],
  },
];

const withoutSide = ({ side: _side, ...alarm }: WantedAlarm & { side: string }): WantedAlarm =>
  alarm;
