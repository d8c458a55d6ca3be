import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import fp from 'fastify-plugin';
import type { ApiToken } from '@ipfe/schema';

export type { ApiToken };

/** What every secret starts with, so that a leaked one is recognisable (secret scanners, logs). */
export const TOKEN_PREFIX = 'ipfe_';

/** `last_used_at` is written at most this often per token: not one fsync per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface TokenRow {
  id: number;
  user: string;
  name: string;
  secret_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

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
  private readonly byHash: Database.Statement<[string], TokenRow>;

  constructor(private readonly db: Database.Database) {
    this.byHash = db.prepare<[string], TokenRow>('SELECT * FROM api_tokens WHERE secret_hash = ?');
  }

  /** A new token of `user`; the secret is returned here and never again. */
  create(user: string, name: string): { token: ApiToken; secret: string } {
    const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const now = new Date().toISOString();
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO api_tokens (user, name, secret_hash, created_at) VALUES (?, ?, ?, ?)')
      .run(user, name, hashSecret(secret), now);
    return {
      token: { id: Number(lastInsertRowid), user, name, createdAt: now, lastUsedAt: null },
      secret,
    };
  }

  find(secret: string): TokenLookup | null {
    const row = this.byHash.get(hashSecret(secret));
    return row ? { token: tokenOf(row), revokedAt: row.revoked_at } : null;
  }

  /** Records a use, at most once per `LAST_USED_RESOLUTION_MS`. */
  touch(token: ApiToken, now = new Date()): void {
    const last = token.lastUsedAt ? Date.parse(token.lastUsedAt) : 0;
    if (now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    this.db
      .prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ?')
      .run(now.toISOString(), token.id);
  }

  /** The tokens not revoked, of one user or (no user) of every user, oldest first. */
  list(user?: string): ApiToken[] {
    const rows =
      user === undefined
        ? this.db
            .prepare<[], TokenRow>(
              'SELECT * FROM api_tokens WHERE revoked_at IS NULL ORDER BY user, id',
            )
            .all()
        : this.db
            .prepare<[string], TokenRow>(
              'SELECT * FROM api_tokens WHERE revoked_at IS NULL AND user = ? ORDER BY id',
            )
            .all(user);
    return rows.map(tokenOf);
  }

  /**
   * Revokes a token not revoked yet (of `user` when given). False when there is no such token:
   * the caller answers 404 rather than telling whose tokens exist.
   */
  revoke(id: number, user?: string): boolean {
    const result = this.db
      .prepare(
        `UPDATE api_tokens SET revoked_at = ?
         WHERE id = ? AND revoked_at IS NULL AND (? IS NULL OR user = ?)`,
      )
      .run(new Date().toISOString(), id, user ?? null, user ?? null);
    return result.changes === 1;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    apiTokensRepository: ApiTokensRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('apiTokensRepository', new ApiTokensRepository(app.db));
  },
  { name: 'api-tokens-repository', dependencies: ['db'] },
);
