/**
 * What a kernel data path must forward, decided here once (SPEC §3.1–§3.6) so that each data
 * path only renders it: per served TSA, its ports and protocols, the bucket tables that choose a
 * server, the servers' states and where their packets go, and the initiator port ranges.
 */
import type { SctpRejectOption, TcpRejectOption } from '@ipfe/schema';
import type { PortRange } from './initiator-ports.ts';
import { buildMaglev, maglevTableSize, nextPrime, type MaglevTable } from './maglev.ts';
import { STATE_RULES, type ServerState } from './server-state.ts';
import type { Announce } from './ownership.ts';
import type { Protocol } from './types.ts';

export interface PlannedServer {
  /** The row's address: the server's identity. */
  readonly server: string;
  /** Where its packets go behind this TSA: the row's secondary address behind a secondary TSA. */
  readonly address: string;
  readonly state: ServerState;
  readonly weight: number;
  /** Whether new connections may go to it now (SPEC §3.1, "own new"). */
  readonly takesNew: boolean;
  /** Offline and initializing servers lose their connections (SPEC §3.1). */
  readonly dropsExisting: boolean;
  /** Its Initiator Port Range when the Target Set supports initiator connections. */
  readonly initiatorPorts: PortRange | null;
}

export interface PlannedTsa {
  readonly targetSet: number;
  readonly tsa: string;
  readonly family: 4 | 6;
  /** The Target Set's secondary address (SCTP multihoming's second path). */
  readonly secondary: boolean;
  readonly ports: readonly number[];
  readonly protocols: readonly Protocol[];
  readonly algorithm: 'hash' | 'leastLoad';
  readonly deleteAgeSeconds: number;
  /**
   * How the TSA reaches this node: `arp`, held as an address on the XSI interface (gratuitous
   * ARP, one owner at a time); `bgp`, active-active (issue 18): never held (each IPFE would claim
   * it), announced over BGP while a server takes new connections, caught by the direct path's
   * netdev chain; a flow without record then goes by the established-by-weight table at any time
   * (ECMP may move it between IPFEs).
   */
  readonly announce: Announce;
  readonly servers: readonly PlannedServer[];
  /**
   * The server of a new connection, by bucket (entries are positions in `servers`); null when no
   * server takes new connections, and new connections are refused. The same Target Set gives its
   * primary and secondary TSA the same table, so both paths of an association reach one row.
   */
  readonly newConnections: MaglevTable | null;
  /**
   * By configured weight, over the servers that take new connections: the same on both mates
   * and on both paths of an association (SCTP's choice; for Hash, `newConnections` itself).
   */
  readonly newByWeight: MaglevTable | null;
  /**
   * By configured weight, over the servers that keep their connections: where an established
   * connection goes that a data path does not remember (a mate's, after a takeover). The same on
   * both mates, which makes Hash stateless.
   */
  readonly existingConnections: MaglevTable | null;
  /**
   * How long after taking the TSA over a data path adopts flows it has no record of, by
   * `existingConnections` (see `adoption`): Delete Age, at most ADOPT_MAX_MS.
   */
  readonly adoptWindowMs: number;
}

/** A TSA and where the packets of one of its servers go (what a conntrack entry names). */
export interface ForwardedPair {
  readonly tsa: string;
  readonly address: string;
}

export interface ForwardingPlan {
  readonly revision: number;
  /** The TCP reject option as chosen: a data path renders what it can (the Options page says which). */
  readonly reject: TcpRejectOption;
  /** What an SCTP INIT no server can take gets (the paths that forward SCTP). */
  readonly sctpReject: SctpRejectOption;
  /**
   * The Global Packet Rate Limit: packets a second each forwarded port takes, counted over every
   * TSA of the port; those above it are dropped (issue 27 item 3; alarms 5100 and 5013).
   */
  readonly packetRateLimitPps: number;
  readonly tsas: readonly PlannedTsa[];
  /**
   * Every TSA × server address the configuration forwards: the enabled Target Sets' addresses
   * this node is active, standby or of the group for, served now or not. A pair that a new
   * revision drops has its connections closed (SPEC §4.1).
   */
  readonly forwarded: readonly ForwardedPair[];
}

/** What a node forwards before it has a configuration: nothing. */
export const NO_PLAN: ForwardingPlan = {
  revision: -1,
  reject: 'tcpReset',
  sctpReject: 'drop',
  packetRateLimitPps: 500_000,
  tsas: [],
  forwarded: [],
};

/**
 * The longest a node adopts flows without record after taking a TSA over: the mate tells of every
 * flow within a read interval, so only those it opened just before it failed, or those of an agent
 * restarted with its table gone, are missing — and they are busy. Past this (or Delete Age, if
 * shorter) a TCP packet without record is an idle connection's, answered with a reset (SPEC §3.5).
 */
export const ADOPT_MAX_MS = 60_000;

/** What a data path does with a flow it has no record of, `takenOverAt` (or never) on. */
export interface Adoption {
  /** The mate's records of the TSA go in (those it tells of late too: a hand-back races it). */
  readonly mateRecords: boolean;
  /**
   * A packet without record goes by `existingConnections`: within the window, and always for a
   * BGP TSA (ECMP may move a flow to this node at any time: another IPFE withdrew, the router
   * rehashed). Otherwise a TCP one is reset.
   */
  readonly byTable: boolean;
}

export function adoption(
  p: Pick<PlannedTsa, 'adoptWindowMs' | 'announce'>,
  takenOverAt: number | undefined,
  now: number,
): Adoption {
  const mateRecords = takenOverAt !== undefined && now < takenOverAt + p.adoptWindowMs;
  return { mateRecords, byTable: mateRecords || p.announce === 'bgp' };
}

/** What the plan needs of a Target Set member (the engine's view). */
export interface PlanMember {
  readonly server: string;
  readonly address: string;
  readonly state: ServerState;
  readonly weight: number;
  /** L of SPEC §3.3 (0–100), null before the first report. */
  readonly load: number | null;
  readonly initiatorPorts: PortRange | null;
}

export interface PlanTargetSet {
  readonly targetSet: number;
  readonly tsa: string;
  readonly secondary: boolean;
  readonly ports: readonly number[];
  readonly protocols: readonly Protocol[];
  readonly algorithm: 'hash' | 'leastLoad';
  readonly deleteAgeSeconds: number;
  /** Default `arp`. */
  readonly announce?: Announce;
  readonly members: readonly PlanMember[];
}

/**
 * How big the bucket tables are. `full`: the engine's Maglev size (≥ 65,537), for a data path
 * whose established connections depend on the table (stateless Hash). `compact`: 100 entries a
 * server, fine enough for 1 % shares, for one that remembers its connections (conntrack) and only
 * chooses new ones by table. A Least Load table is always compact: it changes with every report.
 */
export type TableSizing = 'full' | 'compact';

export function compactTableSize(servers: number): number {
  return nextPrime(Math.max(101, 100 * servers));
}

/**
 * Builds tables, reusing one built before for the same servers, weights and size (a Hash table
 * changes only with server states; rebuilding it on every tick would cost a core).
 */
export class PlanTables {
  #cache = new Map<string, MaglevTable>();

  table(ids: readonly string[], weights: readonly number[], size: number): MaglevTable | null {
    if (!weights.some((w) => w > 0)) return null;
    const signature = `${size}:${ids.map((id, i) => `${id}=${weights[i]}`).join(',')}`;
    let table = this.#cache.get(signature);
    if (!table) {
      if (this.#cache.size > 64) this.#cache.clear();
      table = buildMaglev(
        ids.map((id, i) => ({ id, weight: weights[i] ?? 0 })),
        size,
      );
      this.#cache.set(signature, table);
    }
    return table;
  }
}

/** The plan of one served TSA. */
export function planTsa(
  spec: PlanTargetSet,
  tables: PlanTables,
  sizing: TableSizing = 'full',
): PlannedTsa {
  const servers = spec.members.map((m): PlannedServer => ({
    server: m.server,
    address: m.address,
    state: m.state,
    weight: m.weight,
    takesNew: false,
    dropsExisting: STATE_RULES[m.state].existing === 'delete',
    initiatorPorts: m.initiatorPorts,
  }));
  // Stressed servers take new connections only when nobody else can (SPEC §3.1, last resort).
  const allowed = spec.members.map((m) => m.weight > 0 && STATE_RULES[m.state].ownNew === 'allow');
  const takesNew = allowed.some(Boolean)
    ? allowed
    : spec.members.map((m) => m.weight > 0 && STATE_RULES[m.state].ownNew === 'last-resort');
  const ids = spec.members.map((m) => m.server);
  const withTakesNew = servers.map((s, i) => ({ ...s, takesNew: takesNew[i] === true }));
  const size = sizing === 'full' ? maglevTableSize(ids.length) : compactTableSize(ids.length);
  const newByWeight = tables.table(
    ids,
    spec.members.map((m, i) => (takesNew[i] ? m.weight : 0)),
    size,
  );
  const existingConnections = tables.table(
    ids,
    spec.members.map((m) => (STATE_RULES[m.state].existing === 'keep' ? m.weight : 0)),
    size,
  );
  // Least Load: weights scaled by spare load, L = 100 meaning none spare.
  const newConnections =
    spec.algorithm === 'hash'
      ? newByWeight
      : tables.table(
          ids,
          spec.members.map((m, i) =>
            takesNew[i] ? Math.max(1, Math.round(m.weight * Math.max(1, 100 - (m.load ?? 0)))) : 0,
          ),
          compactTableSize(ids.length),
        );
  return { ...base(spec), servers: withTakesNew, newConnections, newByWeight, existingConnections };
}

function base(spec: PlanTargetSet) {
  return {
    targetSet: spec.targetSet,
    tsa: spec.tsa,
    family: spec.tsa.includes(':') ? (6 as const) : (4 as const),
    secondary: spec.secondary,
    ports: spec.ports,
    protocols: spec.protocols,
    algorithm: spec.algorithm,
    deleteAgeSeconds: spec.deleteAgeSeconds,
    announce: spec.announce ?? ('arp' as const),
    adoptWindowMs: Math.min(ADOPT_MAX_MS, spec.deleteAgeSeconds * 1000),
  };
}

/** Whether a BGP-announced TSA may be announced now: a server of it takes new connections. */
export function announcable(p: PlannedTsa): boolean {
  return p.announce === 'bgp' && p.servers.some((s) => s.takesNew);
}
