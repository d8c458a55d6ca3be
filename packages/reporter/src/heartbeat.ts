import { z } from 'zod';

/** The load states an application server may report (SPEC §3.1, less offline/initializing). */
export const REPORTED_STATES = [
  'underused',
  'normal',
  'burdened',
  'stressed',
  'overloaded',
  'halting',
] as const;
export type ReportedState = (typeof REPORTED_STATES)[number];

/** One heartbeat line (SPEC §4.3): newline-delimited JSON on the monitoring connection. */
export const heartbeatSchema = z.object({
  mps: z.number().min(0).finite(),
  mpsCapacity: z.number().positive().finite(),
  connections: z.number().int().min(0),
  connectionCapacity: z.number().int().positive(),
  state: z.enum(REPORTED_STATES).default('normal'),
});

export type Heartbeat = z.output<typeof heartbeatSchema>;

/** The longest heartbeat line an agent reads; longer lines are malformed. */
export const HEARTBEAT_LINE_MAX = 1024;

/** What stdin (or `update`) may change: the reported values, or silence for failure tests. */
export const reporterUpdateSchema = z.strictObject({
  mps: z.number().min(0).finite().optional(),
  connections: z.number().int().min(0).nullable().optional(),
  state: z.enum(REPORTED_STATES).optional(),
  mpsCapacity: z.number().positive().finite().optional(),
  connectionCapacity: z.number().int().positive().optional(),
  /** Keep monitoring connections open but stop writing heartbeats. */
  silent: z.boolean().optional(),
});
export type ReporterUpdate = z.input<typeof reporterUpdateSchema>;
