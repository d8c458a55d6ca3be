import { z } from 'zod';
import { IPFE_SLOTS } from './limits.ts';
import { agentMeasurementsSchema } from './measurements.ts';

/** The agent's data paths (SPEC §4.2): user space, kernel NAT, and direct (transparent). */
export const DATA_PATHS = ['userspace', 'kernel', 'direct'] as const;
export const dataPathSchema = z.enum(DATA_PATHS);
export type DataPath = z.output<typeof dataPathSchema>;

/** A transport protocol a data path forwards (a Target Set's `both` is the two of them). */
export const forwardedProtocolSchema = z.enum(['tcp', 'sctp']);
export type ForwardedProtocol = z.output<typeof forwardedProtocolSchema>;

/** What an agent's GET /v1/status answers (SPEC §4.6): the contract between agent, API and GUI. */
export const agentAlarmSchema = z.object({
  code: z.int(),
  name: z.string(),
  severity: z.enum(['critical', 'major', 'minor']),
  targetSet: z.int().nullable(),
  server: z.string().nullable(),
  text: z.string(),
  raisedAt: z.string(),
  clearedAt: z.string().nullable(),
});

export const agentServerStatusSchema = z.object({
  address: z.string(),
  state: z.string(),
  since: z.string().nullable(),
  weight: z.number(),
  /** L(m,c) on Least Load's 0–100 scale, from the latest heartbeat; null when unknown. */
  load: z.number().nullable(),
  newPerSecond: z.number(),
  active: z.number(),
});

/**
 * The agent's BGP speaker (issue 18, active-active): its sessions to the upstream routers and the
 * TSA prefixes it announces now. An agent from before it, or without BGP configured, has none.
 */
export const agentBgpStatusSchema = z.object({
  sessions: z.array(
    z.object({
      peer: z.string(),
      state: z.enum(['established', 'connecting', 'down']),
      bfd: z.enum(['up', 'down', 'unknown']),
    }),
  ),
  announced: z.array(z.string()),
});
export type AgentBgpStatus = z.output<typeof agentBgpStatusSchema>;

export const agentStatusSchema = z.object({
  slot: z.enum(IPFE_SLOTS),
  boot: z.string(),
  revision: z.int().nullable(),
  sha256: z.string().nullable(),
  appliedAt: z.string().nullable(),
  dataplane: dataPathSchema,
  /**
   * The protocols its data path forwards. An agent from before this field forwarded TCP only
   * (every path did then), so its status still reads truthfully.
   */
  forwards: z.array(forwardedProtocolSchema).default(['tcp']),
  /**
   * Whether it can serve an active-active Target Set (it has a BGP speaker to announce the TSA).
   * An agent from before this field could on the direct path only.
   */
  activeActive: z.boolean().optional(),
  mate: z.object({
    slot: z.enum(IPFE_SLOTS),
    alive: z.boolean(),
    lastHeardAt: z.string().nullable(),
  }),
  owned: z.array(
    z.object({ tsa: z.string(), targetSet: z.int(), role: z.enum(['active', 'standby']) }),
  ),
  listening: z.array(z.string()),
  connections: z.number(),
  targetSets: z.array(
    z.object({
      number: z.int(),
      disabled: z.boolean(),
      algorithm: z.enum(['hash', 'leastLoad']),
      activeBindings: z.object({ available: z.int(), total: z.int() }),
      /** Protocols of this Target Set that this node does not forward ("not forwarded on this node"). */
      notForwarded: z.array(forwardedProtocolSchema),
      servers: z.array(agentServerStatusSchema),
    }),
  ),
  monitoring: z.array(z.object({ server: z.string(), up: z.boolean() })),
  alarms: z.array(agentAlarmSchema),
  alarmHistory: z.array(agentAlarmSchema),
  counters: z.object({
    configApplies: z.number(),
    configRejects: z.number(),
    failovers: z.number(),
    heartbeats: z.number(),
    malformedHeartbeats: z.number(),
    /** Direct path: the mate's flows this node knows, ready for a takeover. */
    mateFlows: z.number().optional(),
  }),
  bgp: agentBgpStatusSchema.nullable().optional(),
  /**
   * The source product's measurements (measurements.ts): totals per Target Set and server, null
   * where the data path cannot count one. An agent from before them reports none.
   */
  measurements: agentMeasurementsSchema.optional(),
});

export type AgentStatus = z.output<typeof agentStatusSchema>;
export type AgentAlarm = z.output<typeof agentAlarmSchema>;
