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
  connections: z.int().min(0),
  connectionCapacity: z.int().positive(),
  state: z.enum(REPORTED_STATES).default('normal'),
});

export type HeartbeatReport = z.output<typeof heartbeatSchema>;

/** The longest heartbeat line an agent reads; a longer line is malformed. */
export const HEARTBEAT_LINE_MAX = 1024;
