import type Database from 'better-sqlite3';
import fp from 'fastify-plugin';
import type { Role, User } from '@ipfe/schema';

export type { Role, User };

export interface UserRecord extends User {
  passwordHash: string;
  sessionEpoch: number;
}

export interface UserRow {
  name: string;
  role: Role;
  password_hash: string;
  session_epoch: number;
  created_at: string;
  updated_at: string;
}

export const recordOf = (row: UserRow): UserRecord => ({
  name: row.name,
  role: row.role,
  passwordHash: row.password_hash,
  sessionEpoch: row.session_epoch,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const publicUser = ({ name, role, createdAt, updatedAt }: UserRecord): User => ({
  name,
  role,
  createdAt,
  updatedAt,
});

export class UsersRepository {
  /** Every request with a session looks its user up: the statement is prepared once. */
  private readonly findStatement: Database.Statement<[string], UserRow>;

  constructor(private readonly db: Database.Database) {
    this.findStatement = db.prepare<[string], UserRow>('SELECT * FROM users WHERE name = ?');
  }

  find(name: string): UserRecord | null {
    const row = this.findStatement.get(name);
    return row ? recordOf(row) : null;
  }

  list(): UserRecord[] {
    return this.db.prepare<[], UserRow>('SELECT * FROM users ORDER BY name').all().map(recordOf);
  }

  count(): number {
    return this.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users').get()!.n;
  }

  countAdmins(): number {
    return this.db
      .prepare<[], { n: number }>("SELECT count(*) AS n FROM users WHERE role = 'admin'")
      .get()!.n;
  }

  /** False when the name is taken. */
  create(name: string, role: Role, passwordHash: string): boolean {
    const now = new Date().toISOString();
    const result = this.db
      .prepare(
        `INSERT INTO users (name, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO NOTHING`,
      )
      .run(name, role, passwordHash, now, now);
    return result.changes === 1;
  }

  update(name: string, changes: { role?: Role; passwordHash?: string }): void {
    const now = new Date().toISOString();
    this.db
      .prepare(
        `UPDATE users SET role = coalesce(?, role), password_hash = coalesce(?, password_hash),
           session_epoch = session_epoch + (? IS NOT NULL), updated_at = ? WHERE name = ?`,
      )
      .run(
        changes.role ?? null,
        changes.passwordHash ?? null,
        changes.passwordHash ?? null,
        now,
        name,
      );
  }

  delete(name: string): void {
    this.db.prepare('DELETE FROM users WHERE name = ?').run(name);
  }

  /** Runs `fn` in one immediate transaction (checks and writes see the same state). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    usersRepository: UsersRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('usersRepository', new UsersRepository(app.db));
  },
  { name: 'users-repository', dependencies: ['db'] },
);
