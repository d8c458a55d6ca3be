import {
  PACKET_RATE_LIMIT_PPS,
  type ConfigDocument,
  type IpfeSlot,
  type Options,
} from '@ipfe/schema';
import { ConnectionTable } from './connection-table.ts';
import { Counters, type CloseReason, type RefusalReason } from './counters.ts';
import { chooseByHash } from './hash-choice.ts';
import {
  PlanTables,
  planTsa,
  type ForwardedPair,
  type ForwardingPlan,
  type PlannedTsa,
  type TableSizing,
} from './forwarding-plan.ts';
import { hashSource, hashString } from './hash.ts';
import { PortAllocator } from './initiator-ports.ts';
import { newIpWords, parseIp, parseIpv4 } from './ip.ts';
import { chooseLeastLoaded } from './least-load.ts';
import { buildMaglev, maglevLookup, type MaglevTable } from './maglev.ts';
import { filterByPeerNodeGroup, NO_GROUP, PeerNodeGroups } from './peer-node.ts';
import { activeActiveGroupOf } from '@ipfe/schema';
import { RateWindow } from './rate-window.ts';
import { IN_TABLE_BY_CODE, OWN_NEW_BY_CODE, STATE_CODE } from './server-state.ts';
import { Server } from './server.ts';
import { smoothWeightedPick } from './swrr.ts';
import { TargetSet, type Member } from './target-set.ts';
import type {
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
  Route,
  ServerStatus,
} from './types.ts';

export const DEFAULT_MAX_CONNECTIONS = 1_000_000;

interface Tsa {
  readonly address: string;
  /** Key bits of the connection table: Target Set, primary/secondary (protocol added per key). */
  readonly scope: number;
  readonly ts: TargetSet;
  readonly secondary: boolean;
  /** Binding id per member of `ts`. */
  readonly bindings: Int32Array;
}

/** A Target Set address × one of its servers: what a connection table entry points to. */
interface Binding {
  readonly key: string;
  readonly targetSet: number;
  readonly tsa: string;
  readonly server: Server;
  /** Refreshed by each apply (the secondary address may change). */
  route: Route;
}

const NO_GROUP_WORD = 0xffffffff;

/**
 * The forwarding engine (SPEC §3): built from a config document, fed with server reports and
 * connection events with their time, it decides which server takes each new connection and
 * which connections must go. No I/O, no clock, no timers.
 */
export class Engine {
  readonly maxConnections: number;
  readonly slot: IpfeSlot | null;
  #revision = -1;
  #options: Options | null = null;
  #table: ConnectionTable;
  #counters = new Counters();
  #servers = new Map<string, Server>();
  #serverList: Server[] = [];
  #targetSets: TargetSet[] = [];
  #tsas = new Map<string, Tsa>();
  #bindingIds = new Map<string, number>();
  #bindings: (Binding | undefined)[] = [];
  #freeBindings: number[] = [];
  #liveBindings = new Set<number>();
  #groups = new PeerNodeGroups([]);
  #groupIds = new Map<string, number>();
  #groupIdOfLocal = new Int32Array(0);
  /** 1 for each forwarded port. */
  #forwardedPorts = new Uint8Array(65536);
  #allocators = new Map<string, PortAllocator>();
  #maglevCache = new Map<string, MaglevTable>();
  #planTables = new PlanTables();
  /** Every TSA × server address the configuration in force forwards (see ForwardingPlan). */
  #forwarded: readonly ForwardedPair[] = [];
  /** Bumped whenever a server's state changes (candidates and hash tables follow it). */
  #stateVersion = 0;
  /** Bumped whenever a server's load report changes. */
  #loadVersion = 0;
  #serverRate = new RateWindow(16);
  #targetSetRate = new RateWindow(33);
  #ip = newIpWords();
  #lastTsaAddress = '';
  #lastTsa: Tsa | undefined = undefined;

  constructor(document: ConfigDocument, now: Millis, options: EngineOptions = {}) {
    this.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    this.slot = options.slot ?? null;
    this.#table = new ConnectionTable(this.maxConnections);
    this.apply(document, now);
  }

  get revision(): number {
    return this.#revision;
  }

  /** Open connections. */
  get size(): number {
    return this.#table.size;
  }

  // ── configuration ────────────────────────────────────────────────────────────────────────

  /**
   * Applies a new configuration at once. Connections whose Target Set address and server
   * survive keep their server; those of a Target Set deleted or disabled, a server removed from
   * a list, or a TSA moved (to another address, or off this agent's pair) are returned, closed.
   */
  apply(document: ConfigDocument, now: Millis): ApplyResult {
    const config = document.config;
    const options = config.options;
    const previousProtocol = this.#options?.monitorProtocol ?? null;
    const rangeOf = new Map(config.appServers.map((s) => [s.name, s.initiatorPortRange]));

    const targetSets: TargetSet[] = [];
    const tsas = new Map<string, Tsa>();
    const live = new Set<number>();
    const boundNow = new Set<number>();
    const used = new Set<Server>();
    const ageOf = new Map<number, number>();
    for (const spec of config.targetSets) {
      const addresses = [
        { role: spec.primary, secondary: false },
        ...(spec.secondary ? [{ role: spec.secondary, secondary: true }] : []),
      ].filter(({ role }) => {
        // Active-active (issue 18): the group serves both addresses, whatever Active IPFE says.
        const group = activeActiveGroupOf(spec);
        if (group) return this.slot === null || group.includes(this.slot);
        return this.#serves(role.activeIpfe, role.standbyIpfe);
      });
      if (addresses.length === 0) continue;
      const members: Member[] = spec.servers.map((row) => {
        const server = this.#server(row.address);
        return {
          server,
          weight: row.weight,
          secondaryAddress: row.secondaryAddress,
          range:
            row.initiatorPortRange ?? (row.appServer ? (rangeOf.get(row.appServer) ?? null) : null),
          seed: hashString(row.address, 0x7e11ed),
        };
      });
      const ts = new TargetSet(spec, members);
      targetSets.push(ts);
      for (const { role, secondary } of addresses) {
        const bindings = Int32Array.from(members, (m) =>
          this.#binding(ts.number, role.address, m.server, addressBehind(m, secondary)),
        );
        tsas.set(role.address, {
          address: role.address,
          scope: ((ts.number - 1) << 2) | (secondary ? 2 : 0),
          ts,
          secondary,
          bindings,
        });
        for (const b of bindings) boundNow.add(b);
        if (ts.disabled) continue;
        for (const b of bindings) {
          live.add(b);
          ageOf.set(b, ts.deleteAgeMs);
        }
        for (const m of members) used.add(m.server);
      }
    }

    // Commit: from here on nothing can fail.
    const closed: ClosedConnection[] = [];
    for (const b of this.#liveBindings) {
      if (!live.has(b)) this.#closeBinding(b, 'config-removed', closed);
    }
    for (let b = 0; b < this.#bindings.length; b++) {
      if (!live.has(b) && this.#table.countOf(b) === 0 && !boundNow.has(b)) this.#dropBinding(b);
    }
    for (const [b, age] of ageOf) this.#table.setAge(b, age);

    for (const server of this.#serverList) server.bindings = [];
    for (const b of live) this.#bindings[b]?.server.bindings.push(b);
    for (const server of this.#serverList) {
      const wasUsed = server.inUse;
      server.inUse = used.has(server);
      if (!server.inUse) continue;
      if (options.monitorProtocol === 'disabled') {
        this.#setState(server, STATE_CODE.normal, now, closed);
      } else if (!wasUsed) {
        server.reported = false;
        server.lastHeard = now;
        this.#setState(server, STATE_CODE.initializing, now, closed);
      } else if (previousProtocol !== options.monitorProtocol) {
        server.lastHeard = now;
      }
    }

    const releasedPorts: InitiatorPort[] = [];
    const allocators = new Map<string, PortAllocator>();
    for (const tsa of tsas.values()) {
      if (tsa.ts.disabled || !tsa.ts.initiatorSupport) continue;
      for (const m of tsa.ts.members) {
        const key = allocatorKey(tsa.address, m.server.address);
        const old = this.#allocators.get(key);
        if (old && m.range && old.range.start === m.range.start && old.range.end === m.range.end) {
          allocators.set(key, old);
          this.#allocators.delete(key);
        }
      }
    }
    for (const [key, allocator] of this.#allocators) {
      const [tsa = '', server = ''] = key.split('|');
      for (let p = allocator.range.start; p <= allocator.range.end; p++) {
        if (allocator.isInUse(p)) releasedPorts.push({ tsa, server, port: p });
      }
    }

    this.#groups = new PeerNodeGroups(config.peerNodeGroups);
    this.#groupIdOfLocal = Int32Array.from(this.#groups.names, (name) => this.#groupId(name));
    this.#options = options;
    this.#forwardedPorts = new Uint8Array(65536);
    for (const port of options.forwardedPorts) this.#forwardedPorts[port] = 1;
    this.#targetSets = targetSets;
    this.#tsas = tsas;
    this.#lastTsaAddress = '';
    this.#lastTsa = undefined;
    this.#liveBindings = live;
    this.#forwarded = [...live].flatMap((b) => {
      const route = this.#bindings[b]?.route;
      return route ? [{ tsa: route.tsa, address: route.address }] : [];
    });
    this.#allocators = allocators;
    this.#maglevCache = new Map();
    this.#revision = document.revision;
    return { closed, releasedPorts };
  }

  /** The TSA of an address; the last one asked is kept aside (a listener asks for its own). */
  #tsaOf(address: string): Tsa | undefined {
    if (address === this.#lastTsaAddress) return this.#lastTsa;
    const tsa = this.#tsas.get(address);
    this.#lastTsaAddress = address;
    this.#lastTsa = tsa;
    return tsa;
  }

  #serves(active: IpfeSlot, standby: IpfeSlot | null): boolean {
    return this.slot === null || active === this.slot || standby === this.slot;
  }

  // ── server monitoring ────────────────────────────────────────────────────────────────────

  /** A heartbeat from a server: its load and state (default normal). */
  heartbeat(server: string, report: Heartbeat, now: Millis): void {
    const s = this.#servers.get(server);
    if (!s?.inUse || this.#options?.monitorProtocol === 'disabled') return;
    s.reported = true;
    s.mps = report.mps;
    s.mpsCapacity = report.mpsCapacity;
    s.connections = report.connections;
    s.connectionCapacity = report.connectionCapacity;
    s.lastHeard = now;
    this.#loadVersion++;
    this.#setState(s, STATE_CODE[report.state ?? 'normal'], now, []);
  }

  /**
   * The monitoring connection to a server is up. With tcpConnectOnly the server is normal. With
   * heartbeats only a heartbeat brings it back: an offline server that accepts the connection
   * and stays silent (hung) stays offline, rather than flapping through initializing at every
   * reconnect; any other server is initializing until its next heartbeat, and its connections
   * are closed, for a server that connects again may have restarted (SPEC §3.1).
   */
  serverConnected(server: string, now: Millis): ClosedConnection[] {
    const s = this.#servers.get(server);
    const protocol = this.#options?.monitorProtocol;
    const closed: ClosedConnection[] = [];
    if (!s?.inUse || protocol === 'disabled') return closed;
    if (protocol === 'heartbeat' && s.code === STATE_CODE.offline) return closed;
    s.lastHeard = now;
    const state = protocol === 'tcpConnectOnly' ? STATE_CODE.normal : STATE_CODE.initializing;
    this.#setState(s, state, now, closed);
    return closed;
  }

  /** The monitoring connection to a server is lost: offline, its connections closed. */
  serverLost(server: string, now: Millis): ClosedConnection[] {
    const s = this.#servers.get(server);
    const closed: ClosedConnection[] = [];
    if (!s?.inUse || this.#options?.monitorProtocol === 'disabled') return closed;
    this.#setState(s, STATE_CODE.offline, now, closed);
    return closed;
  }

  #setState(s: Server, code: number, now: Millis, closed: ClosedConnection[]): void {
    const before = s.code;
    if (before === code) return;
    s.code = code;
    s.since = now;
    this.#stateVersion++;
    if (code === STATE_CODE.offline || code === STATE_CODE.initializing) {
      const reason: CloseReason =
        code === STATE_CODE.offline ? 'server-offline' : 'server-initializing';
      for (const b of s.bindings) this.#closeBinding(b, reason, closed);
      s.reported = false;
    }
  }

  // ── connections ──────────────────────────────────────────────────────────────────────────

  /** A new connection: the server that takes it, or a refusal with its reason. */
  open(request: OpenRequest, now: Millis): OpenResult {
    const ip = this.#ip;
    const sourcePort = request.sourcePort;
    if (!parseIp(request.sourceIp, ip) || !isPort(sourcePort)) {
      return this.#refuse(null, 'invalid-source');
    }
    const tsa = this.#tsaOf(request.tsa);
    if (tsa === undefined) return this.#refuse(null, 'unknown-tsa');
    const ts = tsa.ts;
    if (ts.disabled) return this.#refuse(ts.number, 'target-set-disabled');
    const sctp = request.protocol === 'sctp';
    if (sctp ? !ts.sctp : !ts.tcp) return this.#refuse(ts.number, 'protocol-not-supported');
    if (this.#forwardedPorts[request.port] !== 1) {
      return this.#refuse(ts.number, 'port-not-forwarded');
    }
    const ports = sourcePort * 65536 + request.port;
    const scope = tsa.scope | (sctp ? 1 : 0);
    const table = this.#table;
    const found = table.find(ip, ports, scope);
    if (found >= 0) {
      const binding = this.#bindings[table.bindingOf(found)];
      if (binding && ts.members.some((m) => m.server === binding.server)) {
        table.touch(found, now);
        return this.#accepted(found, binding.route, true);
      }
      this.#forget(found); // cannot happen: apply closes entries of bindings it removes
    }
    if (table.isFull) return this.#refuse(ts.number, 'table-full');

    this.#serverRate.advance(now);
    this.#targetSetRate.advance(now);
    const avoid = request.avoid ? avoidMask(ts, request.avoid) : 0;
    const localGroup = this.#groups.size > 0 ? this.#groups.groupOf(request.sourceIp) : NO_GROUP;
    const group =
      localGroup === NO_GROUP ? NO_GROUP : (this.#groupIdOfLocal[localGroup] ?? NO_GROUP);
    const position =
      ts.algorithm === 'hash'
        ? chooseByHash(
            ts.members,
            this.#maglevOf(ts),
            hashSource(ip[0] ?? 0, ip[1] ?? 0, ip[2] ?? 0, ip[3] ?? 0, sourcePort),
            avoid,
          )
        : this.#chooseByLeastLoad(ts, group, avoid);
    const member = ts.members[position];
    if (member === undefined) return this.#refuse(ts.number, 'no-server');

    const binding = tsa.bindings[position] ?? 0;
    const slot = table.insert(ip, ports, scope, binding, group, now);
    this.#counters.opened(binding);
    this.#serverRate.add(member.server.index);
    this.#targetSetRate.add(ts.number);
    if (group !== NO_GROUP) member.server.addToGroup(group, 1);
    return this.#accepted(slot, this.#routeOf(binding), false);
  }

  /**
   * Where an open connection goes: its Target Set and server, or null when the key is not in
   * the table. Read-only (it does not count as activity); an IPv4 key is answered from the
   * table's index alone.
   */
  lookup(key: ConnectionKey): Route | null {
    const ip = this.#ip;
    const tsa = this.#tsaOf(key.tsa);
    if (tsa === undefined) return null;
    const ports = key.sourcePort * 65536 + key.port;
    const scope = tsa.scope | (key.protocol === 'sctp' ? 1 : 0);
    const v4 = parseIpv4(key.sourceIp);
    let binding: number;
    if (v4 >= 0) binding = this.#table.findBindingV4(v4, ports, scope);
    else if (parseIp(key.sourceIp, ip)) binding = this.#table.findBinding(ip, ports, scope);
    else return null;
    const b = binding < 0 ? undefined : this.#bindings[binding];
    return b === undefined ? null : b.route;
  }

  /**
   * The server the Target Set's Maglev table designates for a source (SPEC §3.2), before load
   * states are considered: null for an unknown TSA, a Least Load Target Set or an empty table.
   * Changes nothing; for previews and tests.
   */
  hashTarget(tsa: string, sourceIp: string, sourcePort: number): string | null {
    const t = this.#tsas.get(tsa);
    const ip = this.#ip;
    if (!t || t.ts.algorithm !== 'hash' || !parseIp(sourceIp, ip) || !isPort(sourcePort)) {
      return null;
    }
    const table = this.#maglevOf(t.ts);
    const key = hashSource(ip[0] ?? 0, ip[1] ?? 0, ip[2] ?? 0, ip[3] ?? 0, sourcePort);
    return t.ts.members[maglevLookup(table, key)]?.server.address ?? null;
  }

  /** Activity on a connection: its idle time starts again. False when it is not open. */
  touch(id: ConnectionId, now: Millis): boolean {
    const slot = this.#table.slotOf(id);
    if (slot < 0) return false;
    this.#table.touch(slot, now);
    return true;
  }

  /** The connection ended (either side closed it). False when it was not open. */
  close(id: ConnectionId): boolean {
    const slot = this.#table.slotOf(id);
    if (slot < 0) return false;
    this.#forget(slot);
    return true;
  }

  /**
   * Time passes: servers silent for connectTimeoutS turn offline (heartbeat monitoring), and
   * connections idle for their Delete Age expire. Returns the connections to close.
   */
  expire(now: Millis): ClosedConnection[] {
    const closed: ClosedConnection[] = [];
    const options = this.#options;
    if (options && options.monitorProtocol !== 'disabled') {
      const timeout = options.connectTimeoutS * 1000;
      for (const s of this.#serverList) {
        if (!s.inUse || s.code === STATE_CODE.offline) continue;
        const silent =
          options.monitorProtocol === 'heartbeat' || s.code === STATE_CODE.initializing;
        if (silent && now - s.lastHeard >= timeout)
          this.#setState(s, STATE_CODE.offline, now, closed);
      }
    }
    this.#table.expire(now, (slot) => {
      closed.push(this.#closedInfo(slot, 'idle'));
      this.#counters.closed(this.#table.bindingOf(slot), 'idle');
      this.#releaseGroup(slot);
    });
    return closed;
  }

  #accepted(slot: number, route: Route, existing: boolean): OpenResult {
    return {
      ok: true,
      id: this.#table.idOf(slot),
      targetSet: route.targetSet,
      server: route.server,
      address: route.address,
      existing,
    };
  }

  /** The route of a binding of the configuration in force (apply made one per TSA and member). */
  #routeOf(binding: number): Route {
    const b = this.#bindings[binding];
    if (!b) throw new RangeError(`no binding ${binding}`);
    return b.route;
  }

  #refuse(targetSet: number | null, reason: RefusalReason): OpenResult {
    this.#counters.refused(targetSet, reason);
    return { ok: false, reason, targetSet };
  }

  #closedInfo(slot: number, reason: CloseReason): ClosedConnection {
    const b = this.#bindings[this.#table.bindingOf(slot)];
    return {
      id: this.#table.idOf(slot),
      targetSet: b?.targetSet ?? 0,
      server: b?.server.address ?? '',
      reason,
    };
  }

  #releaseGroup(slot: number): void {
    const group = this.#table.groupOf(slot);
    if (group === NO_GROUP_WORD) return;
    this.#bindings[this.#table.bindingOf(slot)]?.server.addToGroup(group, -1);
  }

  #forget(slot: number): void {
    this.#releaseGroup(slot);
    this.#table.remove(slot);
  }

  #closeBinding(binding: number, reason: CloseReason, closed: ClosedConnection[]): void {
    this.#table.forEachOf(binding, (slot) => {
      closed.push(this.#closedInfo(slot, reason));
      this.#counters.closed(binding, reason);
      this.#forget(slot);
    });
  }

  // ── decisions ────────────────────────────────────────────────────────────────────────────

  /** The Target Set's Maglev table over the servers in the hash table now (weight > 0). */
  #maglevOf(ts: TargetSet): MaglevTable {
    if (ts.maglev !== null && ts.maglevVersion === this.#stateVersion) return ts.maglev;
    const servers = ts.members.map((m) => ({
      id: m.server.address,
      weight: IN_TABLE_BY_CODE[m.server.code] === 1 ? m.weight : 0,
    }));
    const signature = servers.map((s) => `${s.id}=${s.weight}`).join(',');
    if (ts.maglev === null || signature !== ts.maglevSignature) {
      let table = this.#maglevCache.get(signature);
      if (!table) {
        table = buildMaglev(servers);
        this.#maglevCache.set(signature, table);
      }
      ts.maglev = table;
      ts.maglevSignature = signature;
    }
    ts.maglevVersion = this.#stateVersion;
    return ts.maglev;
  }

  /**
   * Least Load (SPEC §3.3, §3.4): candidates are servers with weight > 0 whose state allows new
   * connections (stressed ones only when there is no other); Peer Node Aware drops those with
   * D or more connections from the group above the lowest; below leastLoadThreshold new
   * connections per second the choice is weighted round-robin.
   */
  #chooseByLeastLoad(ts: TargetSet, group: number, avoid: number): number {
    ts.refresh(this.#stateVersion, this.#loadVersion);
    let list = ts.eligible;
    let listLength = ts.eligibleCount;
    if (listLength === 0 || (avoid !== 0 && allAvoided(list, listLength, avoid))) {
      list = ts.lastResort;
      listLength = ts.lastResortCount;
    }
    // One pass: the candidates (less the avoided) and their loads, L = base + perConnection · r.
    const candidates = ts.candidates;
    const loads = ts.loads;
    const base = ts.base;
    const perConnection = ts.perConnection;
    const serverIndex = ts.serverIndex;
    const recent = this.#serverRate.counts;
    let n = 0;
    for (let i = 0; i < listLength; i++) {
      const j = list[i] ?? 0;
      if ((avoid & (1 << j)) !== 0) continue;
      candidates[n++] = j;
      loads[j] = (base[j] ?? 0) + (perConnection[j] ?? 0) * (recent[serverIndex[j] ?? 0] ?? 0);
    }
    if (n === 0) return -1;
    if (ts.peerNodeThreshold >= 1 && group !== NO_GROUP && n > 1) {
      const counts = ts.counts;
      for (let i = 0; i < n; i++) {
        counts[i] = ts.members[candidates[i] ?? 0]?.server.groupCount(group) ?? 0;
      }
      n = filterByPeerNodeGroup(candidates, n, counts, ts.peerNodeThreshold);
    }
    const threshold = this.#options?.leastLoadThreshold ?? 0;
    if (threshold > 0 && this.#targetSetRate.count(ts.number) < threshold) {
      return smoothWeightedPick(candidates, n, ts.weights, ts.current);
    }
    return chooseLeastLoaded(candidates, n, loads, ts.weights, ts.allowedDeviation, ts.current);
  }

  // ── initiator connections ────────────────────────────────────────────────────────────────

  /** A free source port on `tsa` inside `server`'s Initiator Port Range, now in use. */
  allocatePort(tsa: string, server: string): PortAllocation {
    const t = this.#tsas.get(tsa);
    if (!t) return { ok: false, reason: 'unknown-tsa' };
    if (t.ts.disabled || !t.ts.initiatorSupport) return { ok: false, reason: 'initiator-disabled' };
    const member = t.ts.members.find((m) => m.server.address === server);
    if (!member?.range) return { ok: false, reason: 'unknown-server' };
    const key = allocatorKey(tsa, server);
    let allocator = this.#allocators.get(key);
    if (!allocator) {
      allocator = new PortAllocator(member.range);
      this.#allocators.set(key, allocator);
    }
    const port = allocator.allocate();
    return port === null ? { ok: false, reason: 'ports-exhausted' } : { ok: true, port };
  }

  /** The initiator connection on tsa:port ended; the port is free again. */
  releasePort(tsa: string, port: number): boolean {
    const server = this.routeInbound(tsa, port);
    if (server === null) return false;
    return this.#allocators.get(allocatorKey(tsa, server))?.release(port) ?? false;
  }

  /** SPEC §3.6: the server that owns traffic arriving at tsa:port (null: not an initiator port). */
  routeInbound(tsa: string, port: number): string | null {
    const t = this.#tsas.get(tsa);
    if (!t || t.ts.disabled || !t.ts.initiatorSupport) return null;
    return t.ts.routes.route(port);
  }

  // ── kernel data paths ────────────────────────────────────────────────────────────────────

  /** What a kernel data path forwards now for these served TSAs (see forwarding-plan.ts). */
  plan(served: Iterable<string>, now: Millis, sizing: TableSizing = 'full'): ForwardingPlan {
    this.#serverRate.advance(now);
    const ports = this.#options?.forwardedPorts ?? [];
    const tsas: PlannedTsa[] = [];
    for (const address of served) {
      const t = this.#tsas.get(address);
      if (!t || t.ts.disabled) continue;
      const ts = t.ts;
      const spec = {
        targetSet: ts.number,
        tsa: address,
        secondary: t.secondary,
        ports,
        protocols: [...(ts.tcp ? ['tcp' as const] : []), ...(ts.sctp ? ['sctp' as const] : [])],
        algorithm: ts.algorithm,
        deleteAgeSeconds: ts.deleteAgeMs / 1000,
        announce: ts.announce,
        members: ts.members.map((m, j) => ({
          server: m.server.address,
          address: this.#routeOf(t.bindings[j] ?? -1).address,
          state: m.server.state,
          weight: m.weight,
          load: ts.load(j, this.#serverRate.count(m.server.index)),
          initiatorPorts: ts.initiatorSupport ? m.range : null,
        })),
      };
      tsas.push(planTsa(spec, this.#planTables, sizing));
    }
    return {
      revision: this.#revision,
      reject: this.#options?.tcpRejectOption ?? 'tcpReset',
      sctpReject: this.#options?.sctpRejectOption ?? 'drop',
      packetRateLimitPps: this.#options?.packetRateLimitPps ?? PACKET_RATE_LIMIT_PPS.default,
      tsas,
      forwarded: this.#forwarded,
    };
  }

  // ── observation ──────────────────────────────────────────────────────────────────────────

  status(now: Millis): EngineStatus {
    this.#serverRate.advance(now);
    return {
      revision: this.#revision,
      connections: this.#table.size,
      maxConnections: this.maxConnections,
      targetSets: this.#targetSets.map((ts) => {
        const tsas = [...this.#tsas.values()].filter((t) => t.ts === ts);
        const servers = ts.members.map((m, j): ServerStatus => {
          const recent = this.#serverRate.count(m.server.index);
          return {
            address: m.server.address,
            state: m.server.state,
            since: m.server.since,
            weight: m.weight,
            load: ts.load(j, recent),
            recent,
            active: tsas.reduce((sum, t) => sum + this.#table.countOf(t.bindings[j] ?? -1), 0),
          };
        });
        return {
          number: ts.number,
          disabled: ts.disabled,
          algorithm: ts.algorithm,
          activeBindings: ts.disabled
            ? 0
            : ts.members.filter((m) => m.weight > 0 && OWN_NEW_BY_CODE[m.server.code] !== 0).length,
          servers,
        };
      }),
    };
  }

  counters(): EngineCounters {
    return {
      revision: this.#revision,
      connections: this.#table.size,
      maxConnections: this.maxConnections,
      expireExamined: this.#table.examined,
      refused: this.#counters.refusals(null),
      targetSets: this.#targetSets.map((ts) => {
        const tsas = [...this.#tsas.values()].filter((t) => t.ts === ts);
        return {
          number: ts.number,
          refused: this.#counters.refusals(ts.number),
          servers: ts.members.map((m, j) => {
            let opened = 0;
            let expired = 0;
            let evicted = 0;
            let active = 0;
            for (const t of tsas) {
              const b = t.bindings[j] ?? -1;
              const c = this.#counters.ofBinding(b);
              opened += c.opened;
              expired += c.expired;
              evicted += c.evicted;
              active += this.#table.countOf(b);
            }
            return { address: m.server.address, opened, active, expired, evicted };
          }),
        };
      }),
    };
  }

  // ── registries (ids that stay stable across configurations) ─────────────────────────────

  #server(address: string): Server {
    let s = this.#servers.get(address);
    if (!s) {
      s = new Server(this.#serverList.length, address);
      this.#servers.set(address, s);
      this.#serverList.push(s);
      this.#serverRate.ensure(this.#serverList.length);
    }
    return s;
  }

  #binding(targetSet: number, tsa: string, server: Server, address: string): number {
    const key = `${targetSet}|${tsa}|${server.address}`;
    const route: Route = { targetSet, tsa, server: server.address, address };
    let id = this.#bindingIds.get(key);
    if (id === undefined) {
      id = this.#freeBindings.pop() ?? this.#bindings.length;
      this.#bindingIds.set(key, id);
      this.#bindings[id] = { key, targetSet, tsa, server, route };
      this.#counters.reset(id);
    } else {
      const b = this.#bindings[id];
      if (b) b.route = route;
    }
    return id;
  }

  /** A binding no configuration uses any more (its connections are closed): its id is reused. */
  #dropBinding(id: number): void {
    const b = this.#bindings[id];
    if (!b) return;
    this.#bindingIds.delete(b.key);
    this.#bindings[id] = undefined;
    this.#freeBindings.push(id);
  }

  #groupId(name: string): number {
    let id = this.#groupIds.get(name);
    if (id === undefined) {
      id = this.#groupIds.size;
      this.#groupIds.set(name, id);
    }
    return id;
  }
}

/** Where a member's packets go behind a TSA: its secondary address behind the secondary TSA. */
function addressBehind(member: Member, secondary: boolean): string {
  return secondary ? (member.secondaryAddress ?? member.server.address) : member.server.address;
}

function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 65535;
}

/** Whether every position in the list is avoided. */
function allAvoided(list: Int32Array, length: number, avoid: number): boolean {
  for (let i = 0; i < length; i++) if ((avoid & (1 << (list[i] ?? 0))) === 0) return false;
  return true;
}

function avoidMask(ts: TargetSet, avoid: readonly string[]): number {
  let mask = 0;
  ts.members.forEach((m, j) => {
    if (avoid.includes(m.server.address)) mask |= 1 << j;
  });
  return mask;
}

function allocatorKey(tsa: string, server: string): string {
  return `${tsa}|${server}`;
}
