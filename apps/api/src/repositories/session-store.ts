import type { SessionStore } from '@fastify/session';
import type { Session } from 'fastify';
import type { Store } from '../store/store.ts';
import { recordOf, type UserRecord, type UserRow } from './users-repository.ts';

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, session?: Session | null) => void;

const DEFAULT_TTL_MS = 8 * 3600 * 1000;

/** A session's row and its user's (all null when the session names no existing user). */
type SessionRow = { data: string } & { [K in keyof UserRow]: UserRow[K] | null };

/** Sessions in the OAM's store, so that they survive a restart of the API. */
export class StoreSessionStore implements SessionStore {
  /** The user read with the last session read, until taken; see `takeUser`. */
  private lastRead: { id: string; user: UserRecord | null } | null = null;

  constructor(private readonly store: Store) {}

  set(id: string, session: Session, callback: Callback): void {
    const expires = (session as { cookie?: { expires?: string | Date | null } }).cookie?.expires;
    const expiresAt = expires ? new Date(expires).getTime() : Date.now() + DEFAULT_TTL_MS;
    const data = JSON.stringify(session);
    this.store.db
      .insertInto('sessions')
      .values({ id, data, expires_at: expiresAt })
      .onConflict((oc) => oc.column('id').doUpdateSet({ data, expires_at: expiresAt }))
      .execute()
      .then(() =>
        this.store.db.deleteFrom('sessions').where('expires_at', '<', Date.now()).execute(),
      )
      .then(
        () => callback(),
        (err: unknown) => callback(err),
      );
  }

  /**
   * Every request reads its session, and then its user: both in one statement (one read of the
   * store instead of two per request).
   */
  get(id: string, callback: GetCallback): void {
    this.lastRead = null;
    this.store.db
      .selectFrom('sessions as s')
      .leftJoin('users as u', (join) =>
        join.on((eb) => eb('u.name', '=', this.store.jsonText('s.data', 'username'))),
      )
      .select([
        's.data',
        'u.name',
        'u.role',
        'u.password_hash',
        'u.session_epoch',
        'u.created_at',
        'u.updated_at',
      ])
      .where('s.id', '=', id)
      .where('s.expires_at', '>=', Date.now())
      .executeTakeFirst()
      .then(
        (row: SessionRow | undefined) => {
          const session = row ? (JSON.parse(row.data) as Session) : null;
          if (row)
            this.lastRead = { id, user: row.name === null ? null : recordOf(row as UserRow) };
          callback(null, session);
        },
        (err: unknown) => callback(err),
      );
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
    this.store.db
      .deleteFrom('sessions')
      .where('id', '=', id)
      .execute()
      .then(
        () => callback(),
        (err: unknown) => callback(err),
      );
  }
}
