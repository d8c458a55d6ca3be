import type Database from 'better-sqlite3';
import {
  checkConfiguration,
  emptyConfiguration,
  type ConfigIssue,
  underiveConfiguration,
  type ConfigDocument,
  type Configuration,
  type RevisionInfo,
} from '@ipfe/schema';
import { buildDocument, canonicalJson } from '@ipfe/schema/digest';
import fp from 'fastify-plugin';

export type { RevisionInfo };

interface RevisionRow {
  number: number;
  author: string;
  created_at: string;
  summary: string;
  sha256: string;
}

const infoOf = (row: RevisionRow): RevisionInfo => ({
  number: row.number,
  author: row.author,
  createdAt: row.created_at,
  summary: row.summary,
  sha256: row.sha256,
});

export interface Change<T> {
  config: Configuration;
  summary: string;
  value: T;
}

/**
 * What is built once per revision and shared by every read of it: the configuration (frozen; the
 * readers that may change it get a copy), its issues, and whatever the routes derive from it.
 */
interface RevisionState {
  number: number;
  sha256: string;
  config: Configuration;
  issues: ConfigIssue[] | null;
  derived: Map<unknown, unknown>;
}

/** Freezes an object and everything in it: a value shared between requests must not change. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * The configuration's history. Each commit stores the whole derived configuration as a new
 * revision, in one immediate transaction: either the revision is there, or nothing changed.
 */
export class ConfigRepository {
  /**
   * The latest revision as last read. Every read asks the database which revision is the latest
   * (one indexed row) and rebuilds this when the number or digest differs: a commit of this
   * process, a rollback (a commit too) or another writer of the file all show up there.
   */
  private state: RevisionState | null = null;
  private readonly listeners: ((revision: RevisionInfo) => void)[] = [];
  private readonly latestStatement: Database.Statement<[], RevisionRow>;
  /**
   * What tells the latest revision apart, asked on every read: two columns rather than five (a
   * `PRAGMA data_version` check would save about 0.7 µs more, but would have to be told of this
   * connection's own commits; not worth a second way to miss one).
   */
  private readonly latestKey: Database.Statement<[], { number: number; sha256: string }>;

  /** Called after each commit, outside its transaction. */
  onCommit(listener: (revision: RevisionInfo) => void): void {
    this.listeners.push(listener);
  }

  constructor(private readonly db: Database.Database) {
    this.latestStatement = db.prepare<[], RevisionRow>(
      'SELECT number, author, created_at, summary, sha256 FROM revisions ORDER BY number DESC LIMIT 1',
    );
    this.latestKey = db.prepare(
      'SELECT number, sha256 FROM revisions ORDER BY number DESC LIMIT 1',
    );
  }

  latestInfo(): RevisionInfo | null {
    const row = this.latestStatement.get();
    return row ? infoOf(row) : null;
  }

  /** The running revision: the latest, or revision 0 (the empty configuration) before any. */
  runningInfo(): RevisionInfo {
    return (
      this.latestInfo() ?? {
        number: 0,
        author: '',
        createdAt: '',
        summary: 'The empty configuration',
        sha256: buildDocument(0, emptyConfiguration()).sha256,
      }
    );
  }

  /** The state of the latest revision, read from the database only when a new one is there. */
  private latestState(): RevisionState {
    const latest = this.latestKey.get();
    const number = latest?.number ?? 0;
    const sha256 = latest?.sha256 ?? '';
    if (this.state?.number !== number || this.state.sha256 !== sha256) {
      let config = emptyConfiguration();
      if (latest) {
        const document = this.document(number);
        if (!document) throw new Error(`revision ${number} vanished`);
        config = underiveConfiguration(document.config);
      }
      this.state = { number, sha256, config: deepFreeze(config), issues: null, derived: new Map() };
    }
    return this.state;
  }

  /** The running configuration (stored form, a copy of its own); the empty one before the first commit. */
  current(): Configuration {
    return structuredClone(this.latestState().config);
  }

  /** The rules' verdict on the running configuration (its warnings), computed once per revision. */
  currentIssues(): ConfigIssue[] {
    const state = this.latestState();
    state.issues ??= checkConfiguration(state.config);
    return state.issues;
  }

  /**
   * `build` run once per revision on the running configuration (frozen, shared: not a copy) and its
   * issues; later calls with the same `key` answer its result until the next revision. What it
   * returns is shared by every request of that revision, so it must not be changed either.
   */
  perRevision<T>(
    key: unknown,
    build: (config: Configuration, issues: ConfigIssue[], revision: number) => T,
  ): T {
    const state = this.latestState();
    if (!state.derived.has(key)) {
      state.issues ??= checkConfiguration(state.config);
      state.derived.set(key, build(state.config, state.issues, state.number));
    }
    return state.derived.get(key) as T;
  }

  list(limit: number, before?: number): RevisionInfo[] {
    return this.db
      .prepare<[number, number], RevisionRow>(
        `SELECT number, author, created_at, summary, sha256 FROM revisions
         WHERE number < ? ORDER BY number DESC LIMIT ?`,
      )
      .all(before ?? Number.MAX_SAFE_INTEGER, limit)
      .map(infoOf);
  }

  count(): number {
    return this.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM revisions').get()!.n;
  }

  /** Revision 0 is the empty configuration every history starts from. */
  document(number: number): ConfigDocument | null {
    if (number === 0) return buildDocument(0, emptyConfiguration());
    const row = this.db
      .prepare<[number], { document: string }>('SELECT document FROM revisions WHERE number = ?')
      .get(number);
    return row ? (JSON.parse(row.document) as ConfigDocument) : null;
  }

  /**
   * Runs `change` on the latest configuration and stores its result as the next revision. A
   * result whose document is the running one (same digest) is no change: no revision is stored,
   * no listener is told (nothing is pushed), and `revision` is null.
   */
  commit<T>(
    author: string,
    change: (base: Configuration) => Change<T>,
  ): { revision: RevisionInfo | null; value: T } {
    const run = this.db.transaction(() => {
      const latest = this.latestInfo();
      const result = change(this.current());
      const number = (latest?.number ?? 0) + 1;
      const document = buildDocument(number, result.config);
      const running = latest?.sha256 ?? buildDocument(0, emptyConfiguration()).sha256;
      if (document.sha256 === running) return { revision: null, value: result.value };
      const createdAt = new Date().toISOString();
      this.db
        .prepare(
          `INSERT INTO revisions (number, author, created_at, summary, sha256, document)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(number, author, createdAt, result.summary, document.sha256, canonicalJson(document));
      const revision: RevisionInfo = {
        number,
        author,
        createdAt,
        summary: result.summary,
        sha256: document.sha256,
      };
      return { revision, value: result.value };
    });
    const result: { revision: RevisionInfo | null; value: T } = run.immediate();
    const { revision } = result;
    if (revision) for (const listener of this.listeners) listener(revision);
    return result;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    configRepository: ConfigRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('configRepository', new ConfigRepository(app.db));
  },
  { name: 'config-repository', dependencies: ['db'] },
);
