import type { EngineCounters, EngineStatus, TsaRoles } from '@ipfe/engine';
import type {
  AgentAlarm,
  AgentMeasurements,
  AgentStatus,
  ConfigDocument,
  DataPath,
  ForwardedProtocol,
  IpfeSlot,
} from '@ipfe/schema';
import type { DataPathCounts } from './data-plane.ts';
import { notForwarded } from './protocols.ts';

/**
 * The engine's counters with each server's opened and active connections taken from the data
 * path where the kernel, not the engine, sees the connections (kernel and direct paths), summed
 * over the Target Set's TSAs; and its refusals added to the engine's. Unchanged otherwise.
 */
export function countersView(
  counters: EngineCounters | null,
  path: Pick<DataPathCounts, 'servers' | 'refused'>,
  document: ConfigDocument | null,
): EngineCounters | null {
  const { servers: counted, refused } = path;
  if (!counters || !counted || !document) return counters;
  return {
    ...counters,
    targetSets: counters.targetSets.map((ts) => {
      const config = document.config.targetSets.find((t) => t.number === ts.number);
      const tsas = [config?.primary.address, config?.secondary?.address].filter(
        (tsa): tsa is string => Boolean(tsa),
      );
      return {
        ...ts,
        refused: {
          ...ts.refused,
          'no-server': ts.refused['no-server'] + (refused?.get(ts.number) ?? 0),
        },
        servers: ts.servers.map((s) => {
          let opened = 0;
          let active = 0;
          for (const tsa of tsas) {
            const c = counted.get(tsa, s.address);
            opened += c?.opened ?? 0;
            active += c?.active ?? 0;
          }
          return { ...s, opened, active };
        }),
      };
    }),
  };
}

/** What the agent knows when asked for its status, read from its parts. */
export interface StatusInputs {
  slot: IpfeSlot;
  boot: string;
  document: ConfigDocument | null;
  appliedAt: string | null;
  dataPath: {
    kind: DataPath;
    forwards: readonly ForwardedProtocol[];
    listening: readonly string[];
    counts: DataPathCounts;
  };
  /** Whether this node has a BGP speaker (it can serve active-active Target Sets). */
  activeActive: boolean;
  mate: { slot: IpfeSlot; alive: boolean; heardAt: number | null };
  owned: readonly TsaRoles[];
  engine: EngineStatus | null;
  /** countersView's, where the data path counts connections itself; else null. */
  liveCounters: EngineCounters | null;
  monitoring: AgentStatus['monitoring'];
  alarms: readonly AgentAlarm[];
  alarmHistory: readonly AgentAlarm[];
  counts: Omit<AgentStatus['counters'], 'mateFlows'>;
  bgp: AgentStatus['bgp'];
  /** measurementsView's. */
  measurements: AgentMeasurements;
  /** Monotonic ms now, and the wall clock's ms now: engine times are monotonic. */
  now: number;
  wallNow: number;
}

/** GET /status: the agent's state as the OAM and an operator read it (agentStatusSchema). */
export function statusView(inputs: StatusInputs): AgentStatus {
  const { document, engine, liveCounters, now, wallNow } = inputs;
  const wall = (t: number) => new Date(wallNow - (now - t)).toISOString();
  return {
    slot: inputs.slot,
    boot: inputs.boot,
    revision: document?.revision ?? null,
    sha256: document?.sha256 ?? null,
    appliedAt: inputs.appliedAt,
    dataplane: inputs.dataPath.kind,
    forwards: [...inputs.dataPath.forwards],
    activeActive: inputs.activeActive,
    mate: {
      slot: inputs.mate.slot,
      alive: inputs.mate.alive,
      lastHeardAt: inputs.mate.heardAt === null ? null : wall(inputs.mate.heardAt),
    },
    owned: inputs.owned.map((r) => ({
      tsa: r.address,
      targetSet: r.targetSet,
      role: r.activeActive || r.active === inputs.slot ? ('active' as const) : ('standby' as const),
    })),
    listening: [...inputs.dataPath.listening],
    connections: inputs.dataPath.counts.connections,
    targetSets: (engine?.targetSets ?? []).map((ts) => {
      const config = document?.config.targetSets.find((t) => t.number === ts.number);
      const live = liveCounters?.targetSets.find((c) => c.number === ts.number);
      return {
        number: ts.number,
        disabled: ts.disabled,
        algorithm: ts.algorithm,
        activeBindings: { available: ts.activeBindings, total: ts.servers.length },
        notForwarded: config ? notForwarded(config.protocols, inputs.dataPath.forwards) : [],
        servers: ts.servers.map((s) => ({
          address: s.address,
          state: s.state,
          since: Number.isFinite(s.since) ? wall(s.since) : null,
          weight: s.weight,
          load: s.load,
          newPerSecond: s.recent,
          active: live?.servers.find((c) => c.address === s.address)?.active ?? s.active,
        })),
      };
    }),
    monitoring: inputs.monitoring,
    alarms: [...inputs.alarms],
    alarmHistory: [...inputs.alarmHistory],
    counters: { ...inputs.counts, mateFlows: inputs.dataPath.counts.mateFlows },
    bgp: inputs.bgp,
    measurements: inputs.measurements,
  };
}
