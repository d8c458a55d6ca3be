import type Database from 'better-sqlite3';
import type { SessionStore } from '@fastify/session';
import type { Session } from 'fastify';
import { recordOf, type UserRecord, type UserRow } from './users-repository.ts';

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, session?: Session | null) => void;

const DEFAULT_TTL_MS = 8 * 3600 * 1000;

/** A session's row and its user's (all null when the session names no existing user). */
type SessionRow = { data: string } & { [K in keyof UserRow]: UserRow[K] | null };

/** Sessions in the same SQLite file, so that they survive a restart of the API. */
export class SqliteSessionStore implements SessionStore {
  /**
   * Every request reads its session, and then its user: both in one statement, prepared once
   * (one SQLite read instead of two per request).
   */
  private readonly getStatement: Database.Statement<[string, number], SessionRow>;
  /** The user read with the last session read, until taken; see `takeUser`. */
  private lastRead: { id: string; user: UserRecord | null } | null = null;

  constructor(private readonly db: Database.Database) {
    this.getStatement = db.prepare<[string, number], SessionRow>(
      `SELECT s.data, u.* FROM sessions AS s
       LEFT JOIN users AS u ON u.name = json_extract(s.data, '$.username')
       WHERE s.id = ? AND s.expires_at >= ?`,
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
    let session: Session | null;
    try {
      this.lastRead = null;
      const row = this.getStatement.get(id, Date.now());
      session = row ? (JSON.parse(row.data) as Session) : null;
      if (row) this.lastRead = { id, user: row.name === null ? null : recordOf(row as UserRow) };
    } catch (err) {
      callback(err);
      return;
    }
    callback(null, session);
  }

  /**
   * The user of session `id` as read with it, in the same statement, by the last `get` — once;
   * undefined when the last read was of another session or was taken already (then read the
   * user). What it answers was read no earlier than the caller's own session: every `get`
   * replaces it, and the auth hook takes it right after its session was read.
   */
  takeUser(id: string): UserRecord | null | undefined {
    const read = this.lastRead;
    this.lastRead = null;
    return read?.id === id ? read.user : undefined;
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
