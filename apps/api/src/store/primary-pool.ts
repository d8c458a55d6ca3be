import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';

/**
 * A PostgreSQL URL split into one URL per host. libpq accepts `postgres://u:p@h1:p1,h2:p2/db` and
 * `target_session_attrs=read-write` (a replicated pair); node-postgres accepts neither, so each host
 * gets a URL of its own and the choice of the primary is made here (decision 023).
 */
export interface StoreUrl {
  /** One single-host URL per host, in the order given. */
  hosts: string[];
  /** `target_session_attrs=read-write` (or `primary`): a connection must be to the primary. */
  readWrite: boolean;
}

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/]*@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/;

export function parseStoreUrl(url: string): StoreUrl {
  const parts = URL_PARTS.exec(url);
  if (!parts) throw new Error('the URL is not postgres://USER:PASSWORD@HOST:PORT/DATABASE');
  const [, scheme, userinfo = '', hostList = '', path = '', query = ''] = parts;
  const params = new URLSearchParams(query.slice(1));
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!['any', 'read-write', 'primary'].includes(attrs))
    throw new Error(`target_session_attrs=${attrs} is not supported (use read-write)`);
  params.delete('target_session_attrs');
  const rest = params.size > 0 ? `?${params}` : '';
  const hosts = hostList.split(',').filter(Boolean);
  if (hosts.length === 0) throw new Error('the URL names no host');
  return {
    hosts: hosts.map((host) => `${scheme}${userinfo}${host}${path}${rest}`),
    readWrite: attrs !== 'any',
  };
}

/** What `show transaction_read_only` says of a server: a hot standby is read-only. */
async function isPrimary(client: { query: pg.Client['query'] }): Promise<boolean> {
  const { rows } = await client.query<{ transaction_read_only: string }>(
    'show transaction_read_only',
  );
  return rows[0]?.transaction_read_only === 'off';
}

export interface ConnectionLimits {
  /** A host that does not accept a connection in this long is skipped (default 2 s). */
  connectTimeoutMs?: number;
  /** A query not answered in this long fails, so that no request hangs on a dead server (default 5 s). */
  queryTimeoutMs?: number;
}

/** Counts and ids are BIGINT (int8): numbers here, as SQLite answers them. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

function clientConfig(url: string, limits: ConnectionLimits): pg.ClientConfig {
  return {
    connectionString: url,
    types,
    // A server machine that died without closing the socket is noticed within seconds.
    keepAlive: true,
    keepAliveInitialDelayMillis: 1000,
    connectionTimeoutMillis: limits.connectTimeoutMs ?? 2000,
    query_timeout: limits.queryTimeoutMs ?? 5000,
  };
}

/** No host of the URL is a primary; the message says what each answered. */
export class NoPrimaryError extends Error {
  readonly code = 'NO_PRIMARY';
}

/**
 * One connection to the primary of `url` (the cluster's own connection: leadership must be held
 * where the writes go). Hosts are tried in order; a standby is refused when there are several.
 */
export async function connectPrimary(
  url: string,
  limits: ConnectionLimits = {},
): Promise<pg.Client> {
  const { hosts, readWrite } = parseStoreUrl(url);
  const problems: string[] = [];
  for (const host of hosts) {
    const client = ignoreSocketErrors(new pg.Client(clientConfig(host, limits)));
    try {
      await client.connect();
      if (!readWrite || (await isPrimary(client))) return client;
      problems.push(`${hostOf(host)}: a standby`);
    } catch (err) {
      problems.push(`${hostOf(host)}: ${(err as Error).message}`);
    }
    await client.end().catch(() => {});
  }
  throw new NoPrimaryError(`no primary among ${problems.join('; ')}`);
}

/** The database named for a message: hosts and database, never the user or the password. */
export function describeStoreUrl(url: string): string {
  const parts = URL_PARTS.exec(url);
  return parts ? `postgres://${parts[3]}${parts[4] ?? ''}` : 'postgres://(unparsable URL)';
}

function hostOf(url: string): string {
  return URL_PARTS.exec(url)?.[3] ?? url;
}

/** The clients already known to be on a primary (a primary stays one until its sessions end). */
const onPrimary = new WeakSet<object>();

const listened = new WeakSet<object>();
/**
 * A socket error on a client nobody listens to crashes the process: a fresh client before its
 * caller listens, or a pooled one while checked out (pg-pool takes its own listener off then) and
 * between queries, when the server is killed. The query or connect it breaks rejects anyway, and
 * the pool drops a client that is no longer queryable.
 */
function ignoreSocketErrors<T extends pg.Client | pg.PoolClient>(client: T): T {
  if (!listened.has(client)) {
    listened.add(client);
    client.on('error', () => {});
  }
  return client;
}

/**
 * The store's connection pool over every host of the URL, for Kysely's PostgresDialect: a
 * connection to the primary when one is reachable (the last host found primary is tried first);
 * when none is, a connection to a standby, so that reads are still served while writes fail with
 * PostgreSQL's "read-only transaction" (25006), which the API answers 503. A single-host URL is one
 * plain pg.Pool.
 */
export class PrimaryPool implements PostgresPool {
  readonly #pools: pg.Pool[];
  readonly #readWrite: boolean;
  #preferred = 0;

  constructor(url: string, limits: ConnectionLimits = {}) {
    const { hosts, readWrite } = parseStoreUrl(url);
    this.#readWrite = readWrite && hosts.length > 1;
    this.#pools = hosts.map((host) => {
      const pool = new pg.Pool({ ...clientConfig(host, limits), max: 10 });
      // An idle client's error (the server went away) must not crash the process.
      pool.on('error', () => {});
      return pool;
    });
  }

  async connect(): Promise<PostgresPoolClient> {
    if (!this.#readWrite) return ignoreSocketErrors(await this.#pools[0]!.connect());
    let standby: pg.PoolClient | null = null;
    let lastError: unknown = null;
    const order = this.#pools.map((_, i) => (this.#preferred + i) % this.#pools.length);
    for (const i of order) {
      let client: pg.PoolClient;
      try {
        client = ignoreSocketErrors(await this.#pools[i]!.connect());
      } catch (err) {
        lastError = err;
        continue;
      }
      try {
        if (onPrimary.has(client) || (await isPrimary(client))) {
          onPrimary.add(client);
          this.#preferred = i;
          standby?.release();
          return client;
        }
      } catch (err) {
        lastError = err;
        client.release(true);
        continue;
      }
      if (standby) client.release();
      else standby = client;
    }
    if (standby) return standby;
    throw lastError ?? new NoPrimaryError('no host of the store answers');
  }

  async end(): Promise<void> {
    await Promise.all(this.#pools.map((pool) => pool.end()));
  }
}
