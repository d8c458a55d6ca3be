import {
  checkConfiguration,
  emptyConfiguration,
  type ConfigIssue,
  underiveConfiguration,
  type ConfigDocument,
  type Configuration,
  type RevisionInfo,
} from '@ipfe/schema';
import { buildDocument, canonicalJson, readStoredDocument } from '@ipfe/schema/digest';
import fp from 'fastify-plugin';
import type { Db, Store } from '../store/store.ts';

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
  /** The digest of the document as read (an older one's differs from the stored digest). */
  readSha256: string | null;
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
   * process, a rollback (a commit too) or another writer of the store all show up there.
   */
  private state: RevisionState | null = null;
  private readonly listeners: ((revision: RevisionInfo) => void)[] = [];

  /** Called after each commit, outside its transaction. */
  onCommit(listener: (revision: RevisionInfo) => void): void {
    this.listeners.push(listener);
  }

  constructor(private readonly store: Store) {}

  async latestInfo(db: Db = this.store.db): Promise<RevisionInfo | null> {
    const row = await db
      .selectFrom('revisions')
      .select(['number', 'author', 'created_at', 'summary', 'sha256'])
      .orderBy('number', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? infoOf(row) : null;
  }

  /** The running revision: the latest, or revision 0 (the empty configuration) before any. */
  async runningInfo(): Promise<RevisionInfo> {
    return (
      (await this.latestInfo()) ?? {
        number: 0,
        author: '',
        createdAt: '',
        summary: 'The empty configuration',
        sha256: buildDocument(0, emptyConfiguration()).sha256,
      }
    );
  }

  /**
   * The state of the latest revision, read from the database only when a new one is there. What
   * tells the latest revision apart is asked on every read: two columns rather than five.
   */
  private async latestState(db: Db = this.store.db): Promise<RevisionState> {
    const latest = await db
      .selectFrom('revisions')
      .select(['number', 'sha256'])
      .orderBy('number', 'desc')
      .limit(1)
      .executeTakeFirst();
    const number = latest?.number ?? 0;
    const sha256 = latest?.sha256 ?? '';
    const known = this.state;
    if (known?.number === number && known.sha256 === sha256) return known;
    let config = emptyConfiguration();
    if (latest) {
      const document = await this.document(number, db);
      if (!document) throw new Error(`revision ${number} vanished`);
      config = underiveConfiguration(document.config);
    }
    const state: RevisionState = {
      number,
      sha256,
      config: deepFreeze(config),
      readSha256: null,
      issues: null,
      derived: new Map(),
    };
    this.state = state;
    return state;
  }

  /** The running configuration (stored form, a copy of its own); the empty one before the first commit. */
  async current(): Promise<Configuration> {
    return structuredClone((await this.latestState()).config);
  }

  /** The running revision's number and configuration (a copy), read together. */
  async running(): Promise<{ number: number; config: Configuration }> {
    const state = await this.latestState();
    return { number: state.number, config: structuredClone(state.config) };
  }

  /** The rules' verdict on the running configuration (its warnings), computed once per revision. */
  async currentIssues(): Promise<ConfigIssue[]> {
    const state = await this.latestState();
    state.issues ??= checkConfiguration(state.config);
    return state.issues;
  }

  /**
   * `build` run once per revision on the running configuration (frozen, shared: not a copy) and its
   * issues; later calls with the same `key` answer its result until the next revision. What it
   * returns is shared by every request of that revision, so it must not be changed either.
   */
  async perRevision<T>(
    key: unknown,
    build: (config: Configuration, issues: ConfigIssue[], revision: number) => T,
  ): Promise<T> {
    const state = await this.latestState();
    if (!state.derived.has(key)) {
      state.issues ??= checkConfiguration(state.config);
      state.derived.set(key, build(state.config, state.issues, state.number));
    }
    return state.derived.get(key) as T;
  }

  async list(limit: number, before?: number): Promise<RevisionInfo[]> {
    let query = this.store.db
      .selectFrom('revisions')
      .select(['number', 'author', 'created_at', 'summary', 'sha256']);
    // No bound at all rather than a huge one: PostgreSQL's INTEGER holds no 2^53.
    if (before !== undefined) query = query.where('number', '<', before);
    const rows = await query.orderBy('number', 'desc').limit(limit).execute();
    return rows.map(infoOf);
  }

  async count(): Promise<number> {
    const row = await this.store.db
      .selectFrom('revisions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Revision 0 is the empty configuration every history starts from. */
  async document(number: number, db: Db = this.store.db): Promise<ConfigDocument | null> {
    if (number === 0) return buildDocument(0, emptyConfiguration());
    const row = await db
      .selectFrom('revisions')
      .select('document')
      .where('number', '=', number)
      .executeTakeFirst();
    // One saved by an older release is read with the defaults of the fields it lacks.
    return row ? readStoredDocument(JSON.parse(row.document) as ConfigDocument) : null;
  }

  /**
   * Runs `change` on the latest configuration and stores its result as the next revision, in one
   * transaction. A result whose document is the running one (same digest) is no change: no
   * revision is stored, no listener is told (nothing is pushed), and `revision` is null. Two
   * writers that both read revision N both try to store N + 1: the revision number is the primary
   * key, so one of them fails and the store runs it again from the start (decision 021) — on the
   * new latest configuration, where its own checks (an If-Match, say) see the other's change.
   */
  async commit<T>(
    author: string,
    change: (base: Configuration, latest: number) => Change<T>,
  ): Promise<{ revision: RevisionInfo | null; value: T }> {
    const result = await this.store.transaction(async (trx) => {
      const latest = await this.latestInfo(trx);
      const state = await this.latestState(trx);
      const base = structuredClone(state.config);
      const result = change(base, latest?.number ?? 0);
      const number = (latest?.number ?? 0) + 1;
      const document = buildDocument(number, result.config);
      // The running document as it is read (an older one with the defaults it lacks filled in).
      state.readSha256 ??= buildDocument(0, state.config).sha256;
      if (document.sha256 === state.readSha256) return { revision: null, value: result.value };
      const createdAt = new Date().toISOString();
      await trx
        .insertInto('revisions')
        .values({
          number,
          author,
          created_at: createdAt,
          summary: result.summary,
          sha256: document.sha256,
          document: canonicalJson(document),
        })
        .execute();
      await this.store.notify(trx, 'revision');
      const revision: RevisionInfo = {
        number,
        author,
        createdAt,
        summary: result.summary,
        sha256: document.sha256,
      };
      return { revision, value: result.value };
    });
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
    app.decorate('configRepository', new ConfigRepository(app.store));
  },
  { name: 'config-repository', dependencies: ['db'] },
);
