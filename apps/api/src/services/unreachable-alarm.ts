/** The default of IPFE_AGENT_START_GRACE_MS: agents started with the OAM answer within it. */
export const AGENT_START_GRACE_MS = 15_000;

/**
 * Whether an agent that stopped answering is alarmed now ("IPFE Unreachable"). One that answered
 * since the OAM started is alarmed at once; one not reached yet gets `graceMs` from the OAM's
 * start, since `npm start` (or a host's boot) starts the OAM before its agents.
 */
export function unreachableAlarmDue(slot: {
  everReached: boolean;
  startedAt: number;
  now: number;
  graceMs: number;
}): boolean {
  return slot.everReached || slot.now - slot.startedAt >= slot.graceMs;
}
