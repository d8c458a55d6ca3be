import { createHash, randomBytes } from 'node:crypto';
import fp from 'fastify-plugin';
import type { Selectable } from 'kysely';
import type { ApiToken } from '@ipfe/schema';
import type { Schema } from '../store/schema.ts';
import type { Db } from '../store/store.ts';

export type { ApiToken };

/** What every secret starts with, so that a leaked one is recognisable (secret scanners, logs). */
export const TOKEN_PREFIX = 'ipfe_';

/** `last_used_at` is written at most this often per token: not one fsync per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** A row of the api_tokens table, as a select returns it. */
type TokenRow = Selectable<Schema['api_tokens']>;

const tokenOf = (row: TokenRow): ApiToken => ({
  id: row.id,
  user: row.user,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** A token as authentication finds it: its owner, and whether it was revoked. */
export interface TokenLookup {
  token: ApiToken;
  revokedAt: string | null;
}

export class ApiTokensRepository {
  constructor(private readonly db: Db) {}

  /** A new token of `user`; the secret is returned here and never again. */
  async create(user: string, name: string): Promise<{ token: ApiToken; secret: string }> {
    const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const now = new Date().toISOString();
    const { id } = await this.db
      .insertInto('api_tokens')
      .values({ user, name, secret_hash: hashSecret(secret), created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { token: { id: Number(id), user, name, createdAt: now, lastUsedAt: null }, secret };
  }

  async find(secret: string): Promise<TokenLookup | null> {
    const row = await this.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('secret_hash', '=', hashSecret(secret))
      .executeTakeFirst();
    return row ? { token: tokenOf(row), revokedAt: row.revoked_at } : null;
  }

  /** Records a use, at most once per `LAST_USED_RESOLUTION_MS`. */
  async touch(token: ApiToken, now = new Date()): Promise<void> {
    const last = token.lastUsedAt ? Date.parse(token.lastUsedAt) : 0;
    if (now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    await this.db
      .updateTable('api_tokens')
      .set({ last_used_at: now.toISOString() })
      .where('id', '=', token.id)
      .execute();
  }

  /** The tokens not revoked, of one user or (no user) of every user, oldest first. */
  async list(user?: string): Promise<ApiToken[]> {
    let query = this.db.selectFrom('api_tokens').selectAll().where('revoked_at', 'is', null);
    query =
      user === undefined
        ? query.orderBy('user').orderBy('id')
        : query.where('user', '=', user).orderBy('id');
    return (await query.execute()).map(tokenOf);
  }

  /**
   * Revokes a token not revoked yet (of `user` when given). False when there is no such token:
   * the caller answers 404 rather than telling whose tokens exist.
   */
  async revoke(id: number, user?: string): Promise<boolean> {
    let query = this.db
      .updateTable('api_tokens')
      .set({ revoked_at: new Date().toISOString() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null);
    if (user !== undefined) query = query.where('user', '=', user);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    apiTokensRepository: ApiTokensRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('apiTokensRepository', new ApiTokensRepository(app.store.db));
  },
  { name: 'api-tokens-repository', dependencies: ['db'] },
);
