/** The engine's public types: what goes in and what comes out. */
import type { IpfeSlot } from '@ipfe/schema';
import type { CloseReason, RefusalCounts, RefusalReason } from './counters.ts';
import type { ReportedState } from '@ipfe/schema';
import type { ServerState } from './server-state.ts';

/** Time is always an argument: milliseconds on any monotonic scale the caller chooses. */
export type Millis = number;
/** Names one connection while it is open; never reused for a later connection. */
export type ConnectionId = number;
export type Protocol = 'tcp' | 'sctp';

export interface EngineOptions {
  /** This agent's slot: only the TSAs it is active or standby for are served. All when unset. */
  readonly slot?: IpfeSlot;
  /** The connection table's bound (default 1,000,000). */
  readonly maxConnections?: number;
}

/** A connection as the data path sees it: (protocol, source IP/port, TSA IP/port). */
export interface ConnectionKey {
  readonly protocol: Protocol;
  readonly sourceIp: string;
  readonly sourcePort: number;
  readonly tsa: string;
  readonly port: number;
}

export interface OpenRequest extends ConnectionKey {
  /** Servers not to choose (the agent failed to connect to them for this client). */
  readonly avoid?: readonly string[];
}

export type OpenResult =
  | {
      readonly ok: true;
      readonly id: ConnectionId;
      readonly targetSet: number;
      /** The server (its primary address, as listed). */
      readonly server: string;
      /** Where to connect: the server's secondary address for the secondary TSA. */
      readonly address: string;
      /** True when the key was already in the table (same server as before). */
      readonly existing: boolean;
    }
  | { readonly ok: false; readonly reason: RefusalReason; readonly targetSet: number | null };

/** Where an open connection goes. */
export interface Route {
  readonly targetSet: number;
  readonly tsa: string;
  /** The server (its primary address, as listed). */
  readonly server: string;
  /** Where to connect: the server's secondary address for the secondary TSA. */
  readonly address: string;
}

export interface ClosedConnection {
  readonly id: ConnectionId;
  readonly targetSet: number;
  readonly server: string;
  readonly reason: CloseReason;
}

/** A heartbeat line of SPEC §4.3 (the agent parses and checks it). */
export interface Heartbeat {
  readonly mps: number;
  readonly mpsCapacity: number;
  readonly connections: number;
  readonly connectionCapacity: number;
  readonly state?: ReportedState;
}

export interface InitiatorPort {
  readonly tsa: string;
  readonly server: string;
  readonly port: number;
}

export type PortAllocation =
  | { readonly ok: true; readonly port: number }
  | {
      readonly ok: false;
      readonly reason: 'unknown-tsa' | 'initiator-disabled' | 'unknown-server' | 'ports-exhausted';
    };

export interface ApplyResult {
  readonly closed: ClosedConnection[];
  /** Initiator ports that were in use for a (TSA, server) the new configuration removes. */
  readonly releasedPorts: InitiatorPort[];
}

export interface ServerStatus {
  readonly address: string;
  readonly state: ServerState;
  /** When the server entered `state`. */
  readonly since: Millis;
  readonly weight: number;
  /** L of SPEC §3.3 now (null before the first report). */
  readonly load: number | null;
  /** New connections given to the server in the last second (the r of L). */
  readonly recent: number;
  /** Open connections of this Target Set on the server. */
  readonly active: number;
}

export interface TargetSetStatus {
  readonly number: number;
  readonly disabled: boolean;
  readonly algorithm: 'hash' | 'leastLoad';
  /** Servers able to take new connections (weight > 0, state not refusing), of `servers`. */
  readonly activeBindings: number;
  readonly servers: ServerStatus[];
}

export interface EngineStatus {
  readonly revision: number;
  readonly connections: number;
  readonly maxConnections: number;
  readonly targetSets: TargetSetStatus[];
}

export interface ServerCounters {
  readonly address: string;
  readonly opened: number;
  readonly active: number;
  readonly expired: number;
  readonly evicted: number;
}

export interface TargetSetCounters {
  readonly number: number;
  readonly refused: RefusalCounts;
  readonly servers: ServerCounters[];
}

export interface EngineCounters {
  readonly revision: number;
  readonly connections: number;
  readonly maxConnections: number;
  /** Entries `expire` has examined so far (its cost, which tracks what expires). */
  readonly expireExamined: number;
  /** Refusals that name no Target Set (unknown TSA, malformed source). */
  readonly refused: RefusalCounts;
  readonly targetSets: TargetSetCounters[];
}
