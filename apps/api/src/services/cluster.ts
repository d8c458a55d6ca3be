import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { OamMember, OamRole } from '@ipfe/schema';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { connectPrimary } from '../store/primary-pool.ts';
import { CLUSTER_CHANNEL, type ClusterTopic, type Store } from '../store/store.ts';

export type { OamMember, OamRole };

/** The session advisory lock the leader holds ("IPFE" in ASCII). */
const LEADER_LOCK = 0x49504645;

export interface ClusterOptions {
  /** How often a follower asks for the lock and the leader checks its connection (default 500 ms). */
  tickMs?: number;
  /** How often each OAM writes its heartbeat (default 2 s); one silent for 3 of them is gone. */
  heartbeatMs?: number;
  /** A query of the cluster connection not answered in this long drops the connection (default 1.5 s). */
  queryTimeoutMs?: number;
  /** Opens the cluster's own connection (default: one pg.Client to the primary, with TCP keepalives). */
  connect?: (url: string, queryTimeoutMs: number) => Promise<pg.Client>;
}

/**
 * The OAMs that share one store, seen from one of them (decision 022). On PostgreSQL the leader is
 * the OAM holding a session advisory lock on a connection of its own: the lock goes with that
 * connection, so an OAM killed outright, or cut off from the database, stops being the leader as
 * soon as PostgreSQL drops its session, and a follower takes the lock at its next tick. The same
 * connection LISTENs for the other OAMs' commits. On SQLite this process is the only OAM: the leader.
 */
export class Cluster {
  readonly id = randomUUID();
  readonly startedAt = new Date().toISOString();
  #address = hostname();
  #role: OamRole;
  #client: pg.Client | null = null;
  #timer: NodeJS.Timeout | null = null;
  #ticking = false;
  #closed = false;
  #lastHeartbeat = 0;
  #lastError: string | null = null;
  readonly #roleListeners: ((role: OamRole) => void)[] = [];
  readonly #topicListeners: ((topic: ClusterTopic) => void)[] = [];
  readonly #tickMs: number;
  readonly #heartbeatMs: number;
  readonly #queryTimeoutMs: number;
  readonly #connect: NonNullable<ClusterOptions['connect']>;

  constructor(
    private readonly store: Store,
    private readonly log: FastifyBaseLogger,
    options: ClusterOptions = {},
  ) {
    this.#role = store.engine === 'sqlite' ? 'leader' : 'follower';
    this.#tickMs = options.tickMs ?? 500;
    this.#heartbeatMs = options.heartbeatMs ?? 2000;
    this.#queryTimeoutMs = options.queryTimeoutMs ?? 1500;
    this.#connect =
      options.connect ??
      ((url, queryTimeoutMs) => connectPrimary(url, { queryTimeoutMs, connectTimeoutMs: 3000 }));
  }

  get role(): OamRole {
    return this.#role;
  }

  /** Where this OAM serves the GUI and API, as the others list it. */
  set address(address: string) {
    this.#address = address;
    this.#lastHeartbeat = 0;
    void this.#heartbeat();
  }

  /** Tells `listener` each time this OAM becomes the leader or stops being it. */
  onRole(listener: (role: OamRole) => void): void {
    this.#roleListeners.push(listener);
  }

  /**
   * Tells `listener` of what another OAM changed in the store — and, after the cluster connection
   * was lost and made again, of every topic, since what was said meanwhile was not heard.
   */
  onTopic(listener: (topic: ClusterTopic) => void): void {
    this.#topicListeners.push(listener);
  }

  /** Takes part: on PostgreSQL, connects and asks for the lock once before answering. */
  async start(): Promise<void> {
    if (this.store.engine === 'sqlite') return;
    await this.#tick();
    this.#timer = setInterval(() => void this.#tick(), this.#tickMs);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    const client = this.#client;
    this.#client = null;
    if (this.store.engine === 'postgres') {
      await this.store.db
        .deleteFrom('oam_nodes')
        .where('id', '=', this.id)
        .execute()
        .catch(() => {});
    }
    // Ending the session releases the lock: a follower takes over without waiting for a timeout.
    await client?.end().catch(() => {});
  }

  /** The OAMs of the store, this one first. */
  async members(): Promise<OamMember[]> {
    const self: OamMember = {
      id: this.id,
      address: this.#address,
      role: this.#role,
      startedAt: this.startedAt,
      lastSeen: new Date().toISOString(),
      self: true,
      present: true,
    };
    if (this.store.engine === 'sqlite') return [self];
    const rows = await this.store.db
      .selectFrom('oam_nodes')
      .selectAll()
      .where('id', '!=', this.id)
      .orderBy('started_at')
      .execute();
    const now = Date.now();
    return [
      self,
      ...rows.map((r) => ({
        id: r.id,
        address: r.address,
        role: r.role,
        startedAt: r.started_at,
        lastSeen: new Date(r.last_seen).toISOString(),
        self: false,
        present: now - r.last_seen <= 3 * this.#heartbeatMs,
      })),
    ];
  }

  #setRole(role: OamRole): void {
    if (role === this.#role) return;
    this.#role = role;
    this.log.warn(
      { oam: this.id, role },
      role === 'leader' ? 'this OAM leads' : 'this OAM follows',
    );
    for (const listener of this.#roleListeners) listener(role);
  }

  /** One step: connect when not connected, ask for the lock (follower) or check the session (leader). */
  async #tick(): Promise<void> {
    if (this.#ticking || this.#closed) return;
    this.#ticking = true;
    try {
      const client = this.#client ?? (await this.#open());
      if (this.#role === 'follower') {
        const { rows } = await client.query<{ got: boolean }>(
          'select pg_try_advisory_lock($1) as got',
          [LEADER_LOCK],
        );
        if (rows[0]?.got && !this.#closed) this.#setRole('leader');
      } else {
        await client.query('select 1');
      }
      this.#lastError = null;
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.#lastError) this.log.warn({ err }, 'cluster connection lost');
      this.#lastError = message;
      this.#drop();
    } finally {
      this.#ticking = false;
    }
    await this.#heartbeat();
  }

  async #open(): Promise<pg.Client> {
    const client = await this.#connect(this.store.url!, this.#queryTimeoutMs);
    client.on('error', () => this.#drop(client));
    client.on('end', () => this.#drop(client));
    client.on('notification', (message) => {
      if (message.channel === CLUSTER_CHANNEL && message.payload)
        this.#tell(message.payload as ClusterTopic);
    });
    await client.query(`LISTEN ${CLUSTER_CHANNEL}`);
    if (this.#closed) {
      await client.end().catch(() => {});
      throw new Error('closed');
    }
    this.#client = client;
    // What the others said while this OAM was not listening is not known: everything may have changed.
    this.#tell('revision');
    this.#tell('alarms');
    return client;
  }

  /** The cluster connection is gone (or given up): the lock with it, so this OAM follows. */
  #drop(client: pg.Client | null = this.#client): void {
    if (client === null || client !== this.#client) {
      client?.end().catch(() => {});
      return;
    }
    this.#client = null;
    this.#setRole('follower');
    client.end().catch(() => {});
  }

  #tell(topic: ClusterTopic): void {
    for (const listener of this.#topicListeners) {
      try {
        listener(topic);
      } catch (err) {
        this.log.error({ err, topic }, 'a cluster listener failed');
      }
    }
  }

  async #heartbeat(): Promise<void> {
    const now = Date.now();
    if (this.#closed || now - this.#lastHeartbeat < this.#heartbeatMs) return;
    this.#lastHeartbeat = now;
    const row = {
      address: this.#address,
      role: this.#role,
      started_at: this.startedAt,
      last_seen: now,
    };
    try {
      await this.store.db
        .insertInto('oam_nodes')
        .values({ id: this.id, ...row })
        .onConflict((oc) => oc.column('id').doUpdateSet(row))
        .execute();
      // An OAM gone for an hour is no longer listed.
      await this.store.db
        .deleteFrom('oam_nodes')
        .where('last_seen', '<', now - 3600_000)
        .execute();
    } catch (err) {
      this.log.debug({ err }, 'could not write the heartbeat');
    }
  }
}
