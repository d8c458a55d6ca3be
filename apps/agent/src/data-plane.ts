import net from 'node:net';
import type {
  ClosedConnection,
  ConnectionId,
  Engine,
  ForwardingPlan,
  Protocol,
  TableSizing,
} from '@ipfe/engine';
import type { Logger } from 'pino';
import type { DataPath, TcpRejectOption } from '@ipfe/schema';
import { ByServer } from './by-server.ts';
import type { SharedFlow } from './mate-link.ts';

export interface Listener {
  tsa: string;
  port: number;
  targetSet: number;
}

/** What a data path counts itself, where the engine does not see the connections. */
export interface DataPathCounts {
  connections: number;
  /** Per planned server: open connections now, and connections seen since the start. */
  servers: ByServer<{ active: number; opened: number }> | null;
  /** New connections refused per Target Set. */
  refused: Map<number, number> | null;
  /**
   * Per forwarded port, since the table was made: every packet to a TSA of it, and those dropped
   * above the Global Packet Rate Limit (the paths that enforce it).
   */
  ports?: ReadonlyMap<number, PortPackets>;
  /** Packets in (client to server) per TSA since the table was made, where the path counts them. */
  tsaPackets?: ReadonlyMap<string, number>;
  /** The mate's connections this node knows of, where the data path learns them itself. */
  mateFlows?: number;
  /** The source product's packet and byte measurements, as far as this data path counts them. */
  measured: Measured;
}

/**
 * The source product's packet and byte measurements (issue 27 item 4) as a data path counts
 * them, totals since the agent started: by TSA, or by TSA and planned server. Null: this data
 * path cannot count it (the user-space path sees its sockets' bytes, not packets, and no SCTP).
 */
export interface Measured {
  /** RxTsaBytes: bytes received for the TSA. */
  rxBytes: Map<string, number> | null;
  /** RxTsaBytesSctp: of them, SCTP. */
  rxSctpBytes: Map<string, number> | null;
  /** TxAsBytes: bytes sent to the server for the TSA. */
  txBytes: ByServer<number> | null;
  /** TsaUnexpctedTcp, TsaUnexpctedSctp: packets it could not take (see nft-measurements.ts). */
  unexpectedTcp: Map<string, number> | null;
  unexpectedSctp: Map<string, number> | null;
}

export interface PortPackets {
  packets: number;
  dropped: number;
}

/** A TSA:port pair that cannot be served, and why. */
export interface BindFailure extends Listener {
  error: string;
}

/**
 * The seam between the agent and a data path: the engine decides (a ForwardingPlan, and
 * per-connection choices for the user-space path), the data path renders, in its own order.
 */
export interface DataPlane {
  readonly kind: DataPath;
  /** The protocols it forwards. */
  readonly protocols: readonly Protocol[];
  /** How big the plan's bucket tables must be for it. */
  readonly tableSizing: TableSizing;
  /**
   * Whether its plan includes the TSAs this node is standby for: their rules are in place before
   * a takeover, which then only announces the address.
   */
  readonly rendersStandby: boolean;
  /**
   * Serve exactly this plan. `hold` puts the served TSAs on the interface; each data path calls
   * it where its order needs it. `gained` are the TSAs this node has just taken over.
   */
  serve(plan: ForwardingPlan, change: ServeChange): Promise<void>;
  /** Engine state may have changed: render again what depends on it. */
  refresh(plan: () => ForwardingPlan): Promise<void>;
  /**
   * Close connections the engine let go: only where the engine sees the connections (the
   * user-space path's sockets); the kernel paths get server states through the plan.
   */
  close?(closed: ClosedConnection[]): void;
  counts(): DataPathCounts;
  /** TSA:port pairs it cannot listen on (a path with sockets of its own: user space). */
  bindFailures?(): BindFailure[];
  /** Why its forwarding rules are not installed, or null (a path that writes rules: nftables). */
  rulesError?(): string | null;
  listening(): Listener[];
  /** Where connection state is shared over the mate link (the direct path's flow records). */
  readonly flowSharing?: MateFlowSharing;
  /** Stop forwarding; `release` takes the TSAs off the interface, in the data path's order. */
  stop(release: () => Promise<void>, timeoutMs: number): Promise<void>;
}

/** Connection state shared with the mate over the mate link. */
export interface MateFlowSharing {
  /** Flows the mate told of. */
  fromMate(flows: SharedFlow[]): void;
  /** The mate restarted or came back: it knows nothing this node told it before. */
  mateReset(): void;
}

export interface ServeChange {
  /** The TSAs this node serves now (a plan may hold more: see rendersStandby). */
  served: string[];
  gained: string[];
  mateAlive: boolean;
  hold(): Promise<void>;
}

/** The TSA:port pairs of a plan that carry this protocol. */
export function listenersOf(plan: ForwardingPlan, protocol: Protocol): Listener[] {
  return plan.tsas
    .filter((t) => t.protocols.includes(protocol))
    .flatMap((t) => t.ports.map((port) => ({ tsa: t.tsa, port, targetSet: t.targetSet })));
}

export interface DataPlaneDeps {
  engine(): Engine | null;
  now(): number;
  log: Logger;
  /** What a client gets when no server can take it. */
  rejectOption(): TcpRejectOption;
  /** How long a connect to a server may take before the next choice is tried. */
  connectTimeoutMs(): number;
  countBytes(tsa: string, direction: 'in' | 'out', bytes: number): void;
  /** Options › Accounting: the measurements (`Measured`) are counted only while it is on. */
  accounting(): boolean;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  tsa: string;
}

const keyOf = (l: { tsa: string; port: number }) => `${l.tsa}|${l.port}`;
/** A TSA the mate still holds (same host in tests) frees within moments: retry soon. */
const RETRY_BIND_MS = 250;
/** A listener that has failed this long raises Address Configuration Error. */
const BIND_ALARM_AFTER_MS = 2000;

/** "::ffff:127.0.0.1" → "127.0.0.1": the engine keys IPv4 clients by their IPv4 address. */
function plainAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * The user-space data path (SPEC §4.2): a TCP listener on every owned TSA and forwarded port; each
 * accepted connection goes to the server the engine chooses, bytes piped both ways with
 * back-pressure (each direction buffers at most one socket high-water mark).
 */
export class UserspaceDataPlane implements DataPlane {
  readonly kind = 'userspace' as const;
  readonly protocols = ['tcp'] as const;
  readonly tableSizing = 'compact' as const;
  readonly rendersStandby = false;
  #listeners = new Map<string, { listener: Listener; server: net.Server }>();
  #bindFailures = new Map<
    string,
    { listener: Listener; error: string; at: number; since: number }
  >();
  #pairs = new Map<ConnectionId, Pair>();
  #pending = new Set<net.Socket>();
  #accepting = true;
  /** The bytes its connections' clients sent, by TSA, and so to their servers, by TSA and server. */
  #received = new Map<string, number>();
  #sent = new ByServer<number>();

  constructor(private readonly deps: DataPlaneDeps) {}

  /** A listener can only bind an address the host holds: the TSAs go on the interface first. */
  async serve(plan: ForwardingPlan, change: ServeChange): Promise<void> {
    await change.hold();
    await this.setListeners(listenersOf(plan, 'tcp'));
  }

  /** The engine chooses per connection: nothing to render. */
  async refresh(): Promise<void> {}

  /**
   * Its sockets' bytes (payload, no headers): received from clients per TSA, and as they are
   * piped on, sent per server. It sees no packets and forwards no SCTP: those are not counted.
   */
  counts(): DataPathCounts {
    return {
      connections: this.#pairs.size,
      servers: null,
      refused: null,
      measured: {
        rxBytes: new Map(this.#received),
        rxSctpBytes: null,
        txBytes: this.#sent.map((bytes) => bytes),
        unexpectedTcp: null,
        unexpectedSctp: null,
      },
    };
  }

  /** Open connections are this process's sockets on the TSA: they drain before it goes. */
  async stop(release: () => Promise<void>, timeoutMs: number): Promise<void> {
    await this.drain(timeoutMs);
    await release();
  }

  /** Opens the listeners `wanted` names and closes the others; open connections stay open. */
  async setListeners(wanted: Listener[]): Promise<void> {
    const wantedKeys = new Set(wanted.map(keyOf));
    for (const [key, entry] of this.#listeners) {
      if (!wantedKeys.has(key) || !this.#accepting) {
        entry.server.close();
        this.#listeners.delete(key);
        this.deps.log.info(
          { tsa: entry.listener.tsa, port: entry.listener.port },
          'listener closed',
        );
      }
    }
    for (const key of this.#bindFailures.keys())
      if (!wantedKeys.has(key)) this.#bindFailures.delete(key);
    if (!this.#accepting) return;
    const now = this.deps.now();
    await Promise.all(
      wanted
        .filter((l) => !this.#listeners.has(keyOf(l)))
        .filter((l) => {
          const failed = this.#bindFailures.get(keyOf(l));
          return !failed || now - failed.at >= RETRY_BIND_MS;
        })
        .map((l) => this.#listen(l)),
    );
  }

  #listen(listener: Listener): Promise<void> {
    const key = keyOf(listener);
    const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) =>
      this.#accept(socket, listener),
    );
    return new Promise((resolve) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        const now = this.deps.now();
        const previous = this.#bindFailures.get(key);
        this.#bindFailures.set(key, {
          listener,
          error: err.code ?? err.message,
          at: now,
          since: previous?.since ?? now,
        });
        if (!previous)
          this.deps.log.warn(
            { tsa: listener.tsa, port: listener.port, err: err.code },
            'cannot listen on TSA',
          );
        resolve();
      });
      server.listen({ host: listener.tsa, port: listener.port, backlog: 4096 }, () => {
        server.removeAllListeners('error');
        server.on('error', (err) => this.deps.log.error({ err }, 'listener error'));
        this.#bindFailures.delete(key);
        this.#listeners.set(key, { listener, server });
        this.deps.log.info({ tsa: listener.tsa, port: listener.port }, 'listening');
        resolve();
      });
    });
  }

  /** Listeners that have failed to bind for a while (a passing conflict is not an alarm). */
  bindFailures(): BindFailure[] {
    const now = this.deps.now();
    return [...this.#bindFailures.values()]
      .filter((f) => now - f.since >= BIND_ALARM_AFTER_MS)
      .map(({ listener, error }) => ({ ...listener, error }));
  }

  listening(): Listener[] {
    return [...this.#listeners.values()].map((e) => e.listener);
  }

  #accept(client: net.Socket, listener: Listener) {
    client.on('error', () => client.destroy());
    const avoid: string[] = [];
    const attempt = () => {
      const engine = this.deps.engine();
      if (!engine || client.destroyed) return this.#reject(client);
      const result = engine.open(
        {
          protocol: 'tcp',
          sourceIp: plainAddress(client.remoteAddress),
          sourcePort: client.remotePort ?? 0,
          tsa: listener.tsa,
          port: listener.port,
          avoid,
        },
        this.deps.now(),
      );
      if (!result.ok) return this.#reject(client);
      const upstream = net.connect({
        host: result.address,
        port: listener.port,
        allowHalfOpen: true,
      });
      this.#pending.add(upstream);
      const timer = setTimeout(
        () => upstream.destroy(new Error('connect timeout')),
        this.deps.connectTimeoutMs(),
      );
      let settled = false;
      upstream.on('error', () => {
        upstream.destroy();
        if (settled) return;
        settled = true; // a second error must not try again
        // Refused or timed out: this server is skipped for this client; the next choice is tried.
        clearTimeout(timer);
        this.#pending.delete(upstream);
        engine.close(result.id);
        avoid.push(result.server);
        this.deps.log.debug({ server: result.server }, 'connect to server failed');
        attempt();
      });
      upstream.once('connect', () => {
        settled = true;
        clearTimeout(timer);
        this.#pending.delete(upstream);
        if (client.destroyed) {
          upstream.destroy();
          engine.close(result.id);
          return;
        }
        this.#pipe(result.id, client, upstream, listener.tsa, result.server);
      });
    };
    attempt();
  }

  #reject(client: net.Socket) {
    if (client.destroyed) return;
    if (this.deps.rejectOption() === 'tcpReset') client.resetAndDestroy();
    else client.destroy();
  }

  #pipe(id: ConnectionId, client: net.Socket, upstream: net.Socket, tsa: string, server: string) {
    const previous = this.#pairs.get(id);
    if (previous) this.#destroyPair(previous);
    const pair: Pair = { client, upstream, tsa };
    this.#pairs.set(id, pair);
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    const touch = () => this.deps.engine()?.touch(id, this.deps.now());
    client.on('data', (chunk: Buffer) => {
      touch();
      this.deps.countBytes(tsa, 'in', chunk.length);
      if (!this.deps.accounting()) return;
      this.#received.set(tsa, (this.#received.get(tsa) ?? 0) + chunk.length);
      this.#sent.set(tsa, server, (this.#sent.get(tsa, server) ?? 0) + chunk.length);
    });
    upstream.on('data', (chunk: Buffer) => {
      touch();
      this.deps.countBytes(tsa, 'out', chunk.length);
    });
    const finish = () => {
      if (this.#pairs.get(id) === pair) {
        this.#pairs.delete(id);
        this.deps.engine()?.close(id);
      }
      this.#destroyPair(pair);
    };
    client.once('close', finish);
    upstream.once('close', finish);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }

  #destroyPair(pair: Pair) {
    pair.client.destroy();
    pair.upstream.destroy();
  }

  /** Closes the connections the engine let go (server offline, idle at Delete Age, config change). */
  close(closed: ClosedConnection[]): void {
    for (const c of closed) {
      const pair = this.#pairs.get(c.id);
      if (!pair) continue;
      this.#pairs.delete(c.id);
      this.#destroyPair(pair);
    }
  }

  /** Stops accepting; waits for open connections to end, up to `timeoutMs`, then cuts the rest. */
  async drain(timeoutMs: number): Promise<void> {
    this.#accepting = false;
    await this.setListeners([]);
    const deadline = Date.now() + timeoutMs;
    while (this.#pairs.size > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    for (const pair of this.#pairs.values()) this.#destroyPair(pair);
    for (const socket of this.#pending) socket.destroy();
    this.#pairs.clear();
  }
}
