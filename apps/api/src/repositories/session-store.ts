import type Database from 'better-sqlite3';
import type { SessionStore } from '@fastify/session';
import type { Session } from 'fastify';

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, session?: Session | null) => void;

const DEFAULT_TTL_MS = 8 * 3600 * 1000;

/** Sessions in the same SQLite file, so that they survive a restart of the API. */
export class SqliteSessionStore implements SessionStore {
  /** Every request reads its session: the statement is prepared once. */
  private readonly getStatement: Database.Statement<[string, number], { data: string }>;

  constructor(private readonly db: Database.Database) {
    this.getStatement = db.prepare<[string, number], { data: string }>(
      'SELECT data FROM sessions WHERE id = ? AND expires_at >= ?',
    );
  }

  set(id: string, session: Session, callback: Callback): void {
    try {
      const expires = (session as { cookie?: { expires?: string | Date | null } }).cookie?.expires;
      const expiresAt = expires ? new Date(expires).getTime() : Date.now() + DEFAULT_TTL_MS;
      this.db
        .prepare(
          `INSERT INTO sessions (id, data, expires_at) VALUES (?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at`,
        )
        .run(id, JSON.stringify(session), expiresAt);
      this.db.prepare('DELETE FROM sessions WHERE expires_at < ?').run(Date.now());
      callback();
    } catch (err) {
      callback(err);
    }
  }

  get(id: string, callback: GetCallback): void {
    try {
      const row = this.getStatement.get(id, Date.now());
      callback(null, row ? (JSON.parse(row.data) as Session) : null);
    } catch (err) {
      callback(err);
    }
  }

  destroy(id: string, callback: Callback): void {
    try {
      this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
      callback();
    } catch (err) {
      callback(err);
    }
  }
}
