import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Migration,
  type MigrationProvider,
  type RawBuilder,
} from 'kysely';
import { describeStoreUrl, PrimaryPool } from './primary-pool.ts';
import type { Schema } from './schema.ts';

/** The channel of the OAMs' notifications on PostgreSQL, and what they tell of. */
export const CLUSTER_CHANNEL = 'ipfe_oam';
export type ClusterTopic = 'revision' | 'alarms';

/** The store's query builder, outside or inside a transaction. */
export type Db = Kysely<Schema>;
export type Engine = 'sqlite' | 'postgres';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

/** Where the store is: a SQLite file, or a PostgreSQL URL (`postgres://` or `postgresql://`). */
export type StoreLocation = { file: string } | { url: string };

/** How a serialization failure or a lost race for a unique key shows on PostgreSQL: retried. */
const RETRIED_CODES = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 10;

/** SQLite's transactions start IMMEDIATE: the write lock is taken first, so none fails halfway. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/** The database named for a message: host and database, never the user's password. */
export function describeLocation(location: StoreLocation): string {
  if ('file' in location) return location.file;
  return describeStoreUrl(location.url);
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

/** The numbered migrations of one engine: `NNN_name.sql`, statements separated by `;`. */
function migrationsOf(engine: Engine): Record<string, Migration> {
  const dir = engine === 'sqlite' ? MIGRATIONS_DIR : `${MIGRATIONS_DIR}postgres/`;
  const migrations: Record<string, Migration> = {};
  for (const file of readdirSync(dir)
    .filter((f) => /^\d{3}_.+\.sql$/.test(f))
    .sort()) {
    const text = readFileSync(dir + file, 'utf8');
    const statements = text
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('--'))
      .join('\n')
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean);
    migrations[file.slice(0, -'.sql'.length)] = {
      async up(db: Kysely<unknown>) {
        for (const statement of statements) await sql.raw(statement).execute(db);
      },
    };
  }
  return migrations;
}

const MIGRATION_TABLE = 'kysely_migration';

/**
 * A SQLite file made before the store went through Kysely counted its migrations in
 * `PRAGMA user_version`: those migrations are recorded as applied, so that none runs twice.
 */
function adoptUserVersion(file: Database.Database, names: string[]): void {
  const version = file.pragma('user_version', { simple: true }) as number;
  const known = file
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(MIGRATION_TABLE);
  if (version === 0 || known) return;
  file.transaction(() => {
    file.exec(
      `CREATE TABLE ${MIGRATION_TABLE} (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)`,
    );
    const insert = file.prepare(`INSERT INTO ${MIGRATION_TABLE} (name, timestamp) VALUES (?, ?)`);
    const now = new Date().toISOString();
    for (const name of names) if (Number(name.slice(0, 3)) <= version) insert.run(name, now);
  })();
}

/** The OAM's store on either engine: one query builder, one way to run a transaction. */
export class Store {
  readonly #commitObservers: ((seconds: number) => void)[] = [];

  private constructor(
    readonly engine: Engine,
    readonly db: Db,
    /** The SQLite file's own handle (online backup, tests); null on PostgreSQL. */
    readonly sqlite: Database.Database | null,
    readonly description: string,
    /** The PostgreSQL URL (the cluster's own connection opens it too); null on SQLite. */
    readonly url: string | null = null,
  ) {}

  /** Opens the store and applies its migrations; throws naming the database when it cannot. */
  static async open(location: StoreLocation): Promise<Store> {
    const description = describeLocation(location);
    let store: Store;
    if ('file' in location) {
      const file = new Database(location.file);
      file.pragma('journal_mode = WAL');
      file.pragma('synchronous = FULL');
      file.pragma('foreign_keys = ON');
      file.pragma('busy_timeout = 5000');
      const db = new Kysely<Schema>({ dialect: new ImmediateSqliteDialect({ database: file }) });
      store = new Store('sqlite', db, file, description);
    } else {
      const pool = new PrimaryPool(location.url);
      const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
      store = new Store('postgres', db, null, description, location.url);
    }
    try {
      await store.migrate();
    } catch (err) {
      await store.close().catch(() => {});
      throw new Error(`cannot open the store ${description}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    return store;
  }

  /**
   * Applies the numbered migrations not applied yet, all in one transaction. On PostgreSQL the
   * Migrator holds an advisory lock (pg_advisory_lock) meanwhile: one OAM migrates at a time.
   */
  private async migrate(): Promise<void> {
    const migrations = migrationsOf(this.engine);
    if (this.sqlite) adoptUserVersion(this.sqlite, Object.keys(migrations));
    const provider: MigrationProvider = { getMigrations: async () => migrations };
    const migrator = new Migrator({ db: this.db, provider, migrationTableName: MIGRATION_TABLE });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error;
    // Kept up to date too: an older OAM on this file then still knows what is applied.
    const last = (results ?? []).filter((r) => r.status === 'Success').at(-1);
    if (this.sqlite && last)
      this.sqlite.pragma(`user_version = ${Number(last.migrationName.slice(0, 3))}`);
  }

  /** Tells `observe` how long the COMMIT of each transaction run by `transaction` took. */
  onCommit(observe: (seconds: number) => void): void {
    this.#commitObservers.push(observe);
  }

  /**
   * Runs `fn` in one transaction: IMMEDIATE on SQLite (one writer at a time), SERIALIZABLE on
   * PostgreSQL, retried from the start when PostgreSQL reports a serialization failure or a lost
   * race for a unique key (decision 021) — so `fn` must do nothing but reads and writes of `trx`.
   * Inside a transaction already, `fn` runs in that one.
   */
  async transaction<T>(fn: (trx: Db) => Promise<T>, db: Db = this.db): Promise<T> {
    if (db.isTransaction) return fn(db);
    for (let attempt = 1; ; attempt++) {
      const begin = db.startTransaction();
      const trx = await (
        this.engine === 'postgres' ? begin.setIsolationLevel('serializable') : begin
      ).execute();
      try {
        const value = await fn(trx);
        const started = performance.now();
        await trx.commit().execute();
        const seconds = (performance.now() - started) / 1000;
        for (const observe of this.#commitObservers) observe(seconds);
        return value;
      } catch (err) {
        if (!trx.isCommitted)
          await trx
            .rollback()
            .execute()
            .catch(() => {});
        const code = (err as { code?: string }).code;
        if (
          this.engine === 'postgres' &&
          code &&
          RETRIED_CODES.has(code) &&
          attempt < MAX_ATTEMPTS
        ) {
          // A random pause, longer each time: writers that collided do not collide again at once.
          await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
          continue;
        }
        throw err;
      }
    }
  }

  /**
   * Tells the other OAMs of the store that `topic` changed, when `db`'s transaction commits (a
   * NOTIFY on PostgreSQL; nothing on SQLite, where this process is the only OAM).
   */
  async notify(db: Db, topic: ClusterTopic): Promise<void> {
    if (this.engine === 'postgres')
      await sql`select pg_notify(${CLUSTER_CHANNEL}, ${topic})`.execute(db);
  }

  /** The secret `name` every OAM of the store shares: made by the first that asks. */
  async sharedSecret(name: string, generate: () => string): Promise<string> {
    await this.db
      .insertInto('cluster_secrets')
      .values({ name, value: generate() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('cluster_secrets')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.value;
  }

  /** The text of `key` in the JSON document of column `column` (the engines spell it apart). */
  jsonText(column: string, key: string): RawBuilder<string | null> {
    return this.engine === 'postgres'
      ? sql<string | null>`(${sql.ref(column)}::json ->> ${key})`
      : sql<string | null>`json_extract(${sql.ref(column)}, ${'$.' + key})`;
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
