import { sql } from 'kysely';
import fp from 'fastify-plugin';
import type { Role, User } from '@ipfe/schema';
import type { Db, Store } from '../store/store.ts';

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
  constructor(
    private readonly store: Store,
    private readonly db: Db = store.db,
  ) {}

  async find(name: string): Promise<UserRecord | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? recordOf(row) : null;
  }

  async list(): Promise<UserRecord[]> {
    const rows = await this.db.selectFrom('users').selectAll().orderBy('name').execute();
    return rows.map(recordOf);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countAdmins(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role', '=', 'admin')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** False when the name is taken. */
  async create(name: string, role: Role, passwordHash: string): Promise<boolean> {
    const now = new Date().toISOString();
    const result = await this.db
      .insertInto('users')
      .values({ name, role, password_hash: passwordHash, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async update(name: string, changes: { role?: Role; passwordHash?: string }): Promise<void> {
    await this.db
      .updateTable('users')
      .set({
        updated_at: new Date().toISOString(),
        ...(changes.role !== undefined ? { role: changes.role } : {}),
        ...(changes.passwordHash !== undefined
          ? { password_hash: changes.passwordHash, session_epoch: sql<number>`session_epoch + 1` }
          : {}),
      })
      .where('name', '=', name)
      .execute();
  }

  async delete(name: string): Promise<void> {
    await this.db.deleteFrom('users').where('name', '=', name).execute();
  }

  /** Runs `fn` in one transaction (checks and writes see the same state), with the users of it. */
  transaction<T>(fn: (users: UsersRepository) => Promise<T>): Promise<T> {
    return this.store.transaction((trx) => fn(new UsersRepository(this.store, trx)), this.db);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    usersRepository: UsersRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('usersRepository', new UsersRepository(app.store));
  },
  { name: 'users-repository', dependencies: ['db'] },
);
