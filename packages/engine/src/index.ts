/**
 * @ipfe/engine — the forwarding decisions of SPEC §3, pure: no sockets, no timers, no clock
 * (every time is an argument, in milliseconds). `Engine` is built from a config document and
 * answers open/lookup/touch/close/expire, server monitoring events, initiator ports, status and
 * counters; `Ownership` says which IPFE serves each TSA address.
 */
export { Engine, DEFAULT_MAX_CONNECTIONS } from './engine.ts';
export type {
  ApplyResult,
  ClosedConnection,
  ConnectionId,
  ConnectionKey,
  EngineCounters,
  EngineOptions,
  EngineStatus,
  Heartbeat,
  InitiatorPort,
  Millis,
  OpenRequest,
  OpenResult,
  PortAllocation,
  Protocol,
  Route,
  ServerCounters,
  ServerStatus,
  TargetSetCounters,
  TargetSetStatus,
} from './types.ts';
export {
  announceOf,
  Ownership,
  PREEMPTION_HOLD_OFF_MS,
  tsaRolesOf,
  type Announce,
  type TsaRoles,
} from './ownership.ts';
export {
  CLOSE_REASONS,
  REFUSAL_REASONS,
  type CloseReason,
  type RefusalCounts,
  type RefusalReason,
} from './counters.ts';
export {
  SERVER_STATES,
  STATE_RULES,
  inStasis,
  isReportableState,
  type ReportedState,
  type ServerState,
  type StateRules,
} from './server-state.ts';
export {
  bandTop,
  leastLoadCandidates,
  leastTakesAll,
  loadIndex,
  newConnectionRule,
  type LoadInputs,
} from './least-load.ts';
export {
  ADOPT_MAX_MS,
  adoption,
  announcable,
  compactTableSize,
  NO_PLAN,
  type Adoption,
  type ForwardedPair,
  type TableSizing,
  type ForwardingPlan,
  type PlannedServer,
  type PlannedTsa,
} from './forwarding-plan.ts';
export { AnnounceHoldDown } from './announce-hold-down.ts';
export { buildMaglev, maglevTableSize, type MaglevServer, type MaglevTable } from './maglev.ts';
