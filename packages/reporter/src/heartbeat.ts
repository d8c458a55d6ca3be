import { REPORTED_STATES } from '@ipfe/schema';
import { z } from 'zod';

export { REPORTED_STATES, heartbeatSchema, HEARTBEAT_LINE_MAX } from '@ipfe/schema';
export type { ReportedState, HeartbeatReport as Heartbeat } from '@ipfe/schema';

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
