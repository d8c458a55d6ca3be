import type Database from 'better-sqlite3';
import {
  checkConfiguration,
  emptyConfiguration,
  type ConfigIssue,
  underiveConfiguration,
  type ConfigDocument,
  type Configuration,
} from '@ipfe/schema';
import { buildDocument, canonicalJson } from '@ipfe/schema/digest';
import fp from 'fastify-plugin';

export interface RevisionInfo {
  number: number;
  author: string;
  createdAt: string;
  summary: string;
  sha256: string;
}

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
 * The configuration's history. Each commit stores the whole derived configuration as a new
 * revision, in one immediate transaction: either the revision is there, or nothing changed.
 */
export class ConfigRepository {
  private cache: { number: number; config: Configuration } | null = null;
  private issuesCache: { number: number; issues: ConfigIssue[] } | null = null;
  private readonly listeners: ((revision: RevisionInfo) => void)[] = [];

  /** Called after each commit, outside its transaction. */
  onCommit(listener: (revision: RevisionInfo) => void): void {
    this.listeners.push(listener);
  }

  constructor(private readonly db: Database.Database) {}

  latestInfo(): RevisionInfo | null {
    const row = this.db
      .prepare<[], RevisionRow>(
        'SELECT number, author, created_at, summary, sha256 FROM revisions ORDER BY number DESC LIMIT 1',
      )
      .get();
    return row ? infoOf(row) : null;
  }

  /** The running configuration (stored form); the empty one before the first commit. */
  current(): Configuration {
    const latest = this.latestInfo();
    if (!latest) return emptyConfiguration();
    if (this.cache?.number !== latest.number) {
      const document = this.document(latest.number);
      if (!document) throw new Error(`revision ${latest.number} vanished`);
      this.cache = { number: latest.number, config: underiveConfiguration(document.config) };
    }
    return structuredClone(this.cache.config);
  }

  /** The rules' verdict on the running configuration (its warnings), computed once per revision. */
  currentIssues(): ConfigIssue[] {
    const number = this.latestInfo()?.number ?? 0;
    if (this.issuesCache?.number !== number) {
      this.issuesCache = { number, issues: checkConfiguration(this.current()) };
    }
    return this.issuesCache.issues;
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

  /** Runs `change` on the latest configuration and stores its result as the next revision. */
  commit<T>(author: string, change: (base: Configuration) => Change<T>) {
    const run = this.db.transaction(() => {
      const latest = this.latestInfo();
      const result = change(this.current());
      const number = (latest?.number ?? 0) + 1;
      const document = buildDocument(number, result.config);
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
    const result = run.immediate();
    for (const listener of this.listeners) listener(result.revision);
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
