import { REPORTED_STATES, type ReportedState } from '@ipfe/schema';

export type { ReportedState };
/**
 * Server load states and what each one allows (SPEC §3.1, after seed 002 table 10). One table,
 * read by the Hash and the Least Load choices, by the connection table and by the tests.
 */

export const SERVER_STATES = [
  'underused',
  'normal',
  'burdened',
  'stressed',
  'overloaded',
  'halting',
  'offline',
  'initializing',
] as const;
export type ServerState = (typeof SERVER_STATES)[number];

// The states a heartbeat may report are the schema's (offline and initializing are the engine's own).
const reportedStatesAreServerStates = REPORTED_STATES satisfies readonly ServerState[];

export interface StateRules {
  /** The server keeps its entries in the Maglev table. */
  readonly inHashTable: boolean;
  /** New connections whose key maps to this server. 'last-resort': only if no other can. */
  readonly ownNew: 'allow' | 'last-resort' | 'refuse';
  /** New connections overflowing from another server. */
  readonly overflow: 'allow' | 'refuse';
  /** Open connections: kept, or deleted (closed). */
  readonly existing: 'keep' | 'delete';
  /** Entering this state removes the server's entries from the Maglev table. */
  readonly clearsBuckets: boolean;
}

export const STATE_RULES: Readonly<Record<ServerState, StateRules>> = {
  underused: rules(true, 'allow', 'allow', 'keep', false),
  normal: rules(true, 'allow', 'allow', 'keep', false),
  burdened: rules(true, 'allow', 'allow', 'keep', false),
  stressed: rules(true, 'last-resort', 'refuse', 'keep', false),
  overloaded: rules(true, 'refuse', 'refuse', 'keep', false),
  halting: rules(false, 'refuse', 'refuse', 'keep', true),
  offline: rules(false, 'refuse', 'refuse', 'delete', true),
  initializing: rules(true, 'refuse', 'refuse', 'delete', false),
};

function rules(
  inHashTable: boolean,
  ownNew: StateRules['ownNew'],
  overflow: StateRules['overflow'],
  existing: StateRules['existing'],
  clearsBuckets: boolean,
): StateRules {
  return { inHashTable, ownNew, overflow, existing, clearsBuckets };
}

/** "In stasis" (alarm 5005): stressed or worse, as the server itself reports it. */
export function inStasis(state: ServerState): boolean {
  return state === 'stressed' || state === 'overloaded' || state === 'halting';
}

export function isReportableState(value: unknown): value is ReportedState {
  return (reportedStatesAreServerStates as readonly unknown[]).includes(value);
}

/** Numeric codes for typed arrays, in SERVER_STATES order. */
export const STATE_CODE: Readonly<Record<ServerState, number>> = Object.fromEntries(
  SERVER_STATES.map((s, i) => [s, i]),
) as Record<ServerState, number>;

/** STATE_RULES by numeric code, for the decision path. */
export const OWN_NEW_ALLOW = 2;
export const OWN_NEW_LAST_RESORT = 1;
export const OWN_NEW_BY_CODE: Uint8Array = Uint8Array.from(SERVER_STATES, (s) =>
  STATE_RULES[s].ownNew === 'allow' ? 2 : STATE_RULES[s].ownNew === 'last-resort' ? 1 : 0,
);
export const OVERFLOW_BY_CODE: Uint8Array = Uint8Array.from(SERVER_STATES, (s) =>
  STATE_RULES[s].overflow === 'allow' ? 1 : 0,
);
export const IN_TABLE_BY_CODE: Uint8Array = Uint8Array.from(SERVER_STATES, (s) =>
  STATE_RULES[s].inHashTable ? 1 : 0,
);
