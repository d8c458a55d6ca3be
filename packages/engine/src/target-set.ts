import type { DerivedTargetSet } from '@ipfe/schema';
import { InitiatorRoutes, type PortRange } from './initiator-ports.ts';
import { loadOf } from './least-load.ts';
import type { MaglevTable } from './maglev.ts';
import { activeActiveGroupOf } from '@ipfe/schema';
import type { Announce } from './ownership.ts';
import type { Server } from './server.ts';
import { OWN_NEW_ALLOW, OWN_NEW_BY_CODE, OWN_NEW_LAST_RESORT } from './server-state.ts';

/** One row of a Target Set's IP List, bound to the server's monitoring state. */
export interface Member {
  readonly server: Server;
  readonly weight: number;
  readonly secondaryAddress: string | null;
  readonly range: PortRange | null;
  /** For the overflow order (weighted rendezvous hashing). */
  readonly seed: number;
}

/**
 * A Target Set as the engine runs it: its parameters from the config document, its members,
 * and what the decisions keep between connections (round-robin scores, the Maglev table, the
 * candidate lists and load coefficients, refreshed when server states or reports change).
 */
export class TargetSet {
  readonly number: number;
  readonly algorithm: 'hash' | 'leastLoad';
  readonly disabled: boolean;
  readonly tcp: boolean;
  readonly sctp: boolean;
  readonly deleteAgeMs: number;
  readonly fm: number;
  readonly fc: number;
  readonly allowedDeviation: number;
  /** D when Peer Node Aware is on, else 0. */
  readonly peerNodeThreshold: number;
  readonly initiatorSupport: boolean;
  /** `bgp` for an active-active Target Set (issue 18), else `arp`. */
  readonly announce: Announce;
  readonly members: readonly Member[];
  readonly weights: Float64Array;
  readonly highestWeight: number;
  readonly current: Float64Array;
  readonly loads: Float64Array;
  readonly candidates: Int32Array;
  readonly counts: Float64Array;
  readonly routes: InitiatorRoutes;
  maglev: MaglevTable | null = null;
  maglevVersion = -1;
  maglevSignature = '';
  /** Positions whose state allows new connections (weight > 0), then the stressed ones. */
  readonly eligible: Int32Array;
  eligibleCount = 0;
  readonly lastResort: Int32Array;
  lastResortCount = 0;
  #stateVersion = -1;
  /** L = base + perConnection · r, from the latest reports (recomputed when one arrives). */
  readonly base: Float64Array;
  readonly perConnection: Float64Array;
  readonly serverIndex: Int32Array;
  #loadVersion = -1;

  constructor(ts: DerivedTargetSet, members: Member[]) {
    this.number = ts.number;
    this.algorithm = ts.algorithm;
    this.disabled = ts.disabled;
    this.tcp = ts.protocols !== 'sctp';
    this.sctp = ts.protocols !== 'tcp';
    this.deleteAgeMs = ts.deleteAgeSeconds * 1000;
    this.fm = ts.leastLoad.mpsFactor;
    this.fc = ts.leastLoad.connectionCountFactor;
    this.allowedDeviation = ts.leastLoad.allowedDeviation;
    this.peerNodeThreshold = ts.leastLoad.peerNodeAware ? ts.leastLoad.peerNodeThreshold : 0;
    this.initiatorSupport = ts.initiatorSupport;
    this.announce = activeActiveGroupOf(ts) ? 'bgp' : 'arp';
    this.members = members;
    this.weights = Float64Array.from(members, (m) => m.weight);
    this.highestWeight = members.reduce((max, m) => Math.max(max, m.weight), 0);
    this.current = new Float64Array(members.length);
    this.loads = new Float64Array(members.length);
    this.candidates = new Int32Array(members.length);
    this.counts = new Float64Array(members.length);
    this.routes = new InitiatorRoutes(
      members.map((m) => ({ server: m.server.address, range: m.range })),
    );
    this.eligible = new Int32Array(members.length);
    this.lastResort = new Int32Array(members.length);
    this.base = new Float64Array(members.length);
    this.perConnection = new Float64Array(members.length);
    this.serverIndex = Int32Array.from(members, (m) => m.server.index);
  }

  /** Brings the candidate lists and load coefficients up to date with the servers. */
  refresh(stateVersion: number, loadVersion: number): void {
    const members = this.members;
    if (stateVersion !== this.#stateVersion) {
      this.#stateVersion = stateVersion;
      let n = 0;
      let k = 0;
      for (let j = 0; j < members.length; j++) {
        const m = members[j];
        if (m === undefined || m.weight === 0) continue;
        const allows = OWN_NEW_BY_CODE[m.server.code];
        if (allows === OWN_NEW_ALLOW) this.eligible[n++] = j;
        else if (allows === OWN_NEW_LAST_RESORT) this.lastResort[k++] = j;
      }
      this.eligibleCount = n;
      this.lastResortCount = k;
    }
    if (loadVersion !== this.#loadVersion) {
      this.#loadVersion = loadVersion;
      for (let j = 0; j < members.length; j++) {
        const m = members[j];
        if (m === undefined || m.weight === 0) continue;
        const s = m.server;
        const scale = this.highestWeight / m.weight;
        const perMps = s.reported && s.mpsCapacity > 0 ? (this.fm * scale) / s.mpsCapacity : 0;
        const perConnection =
          s.reported && s.connectionCapacity > 0 ? (this.fc * scale) / s.connectionCapacity : 0;
        this.base[j] = perMps * s.mps + perConnection * s.connections;
        this.perConnection[j] = perConnection;
      }
    }
  }

  load(position: number, recent: number): number | null {
    const m = this.members[position];
    if (!m || !m.server.reported || m.weight === 0) return null;
    const s = m.server;
    return loadOf(
      this.fm,
      this.fc,
      s.mps,
      s.mpsCapacity,
      s.connections + recent,
      s.connectionCapacity,
      m.weight,
      this.highestWeight,
    );
  }
}
