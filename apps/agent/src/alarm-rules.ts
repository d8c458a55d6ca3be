import { inStasis, type EngineStatus } from '@ipfe/engine';
import {
  activeActiveGroupOf,
  formatHostPort,
  type AgentBgpStatus,
  type ConfigDocument,
  type DataPath,
  type ForwardedProtocol,
  type IpfeSlot,
} from '@ipfe/schema';
import { notForwarded, protocolsOf } from './protocols.ts';

/**
 * Every alarm the agent raises, numbered after the source product's IPFE alarms (SPEC §4.6), plus
 * 5020 for BGP and 5100 for pushes. Most are raised by a rule of ALARM_RULES below; 5012 by mate
 * liveness (mate-liveness.ts) and 5100 by a rejected push (push-outcome.ts).
 */
export const ALARMS = {
  5001: { name: 'Backend Unavailable', severity: 'major' },
  5002: { name: 'Address Configuration Error', severity: 'critical' },
  5005: { name: 'Backend In Stasis', severity: 'minor' },
  5008: { name: 'Out of Balance: High', severity: 'minor' },
  5009: { name: 'No Available Servers in Target Set', severity: 'critical' },
  5012: { name: 'Mate Heartbeat Timeout', severity: 'major' },
  /** Per upstream router, while its BGP session is not established (issue 18). */
  5020: { name: 'BGP Session Down', severity: 'major' },
  5100: { name: 'Configuration Rejected', severity: 'minor' },
} as const;

export type AlarmCode = keyof typeof ALARMS;
export type Severity = (typeof ALARMS)[AlarmCode]['severity'];

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
  /** TSAs the address holder cannot put on the interface. */
  addressFailures: readonly { address: string; error: string }[];
  /** TSA:port pairs the data path cannot listen on. */
  bindFailures: readonly { tsa: string; port: number; targetSet: number; error: string }[];
  /** The BalanceWatch's verdict over the last minute. */
  outOfBalance: readonly WantedAlarm[];
}

/**
 * An alarm raised while its cause holds: `wanted` names every alarm of `code` that should be
 * active now; the agent raises those and clears every other one of that code.
 */
export interface AlarmRule {
  code: AlarmCode;
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
    code: 5020,
    wanted: ({ bgp }) =>
      (bgp?.downSessions ?? []).map((s) => ({
        server: s.peer,
        text: `BGP session to ${s.peer} is ${s.state} (BFD ${s.bfd})`,
      })),
  },
  {
    code: 5001,
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
    code: 5005,
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
    code: 5009,
    wanted: ({ status, ownedSets }) =>
      status.targetSets
        .filter((ts) => ownedSets.has(ts.number) && !ts.disabled && ts.activeBindings === 0)
        .map((ts) => ({
          targetSet: ts.number,
          text: `No server of Target Set ${ts.number} can take new connections`,
        })),
  },
  {
    code: 5002,
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
    code: 5008,
    wanted: ({ outOfBalance }) => [...outOfBalance],
  },
];
