import { randomBytes, timingSafeEqual } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifySession from '@fastify/session';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { CompiledQuery } from 'kysely';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { ApiError } from '../http/errors.ts';
import type { Role, UserRecord } from '../repositories/users-repository.ts';
import type { ApiToken } from '../repositories/api-tokens-repository.ts';
import { storeUnavailableReason } from '../store/unavailable.ts';
import { StoreSessionStore } from '../repositories/session-store.ts';
import { RememberingSigner } from '../http/remembering-signer.ts';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../domain/passwords.ts';
import type { Store } from '../store/store.ts';

declare module 'fastify' {
  interface Session {
    username?: string;
    epoch?: number;
    csrfToken?: string;
  }
  interface FastifyRequest {
    user: UserRecord | null;
    /** The API token the request authenticated with; null for a session (or no one). */
    apiToken: ApiToken | null;
  }
  interface FastifyContextConfig {
    /** Who may call the route: `public`, or the least role. Default: viewer for reads, operator for writes. */
    access?: 'public' | Role;
  }
  interface FastifyInstance {
    login(request: FastifyRequest, username: string, password: string): Promise<UserRecord>;
  }
}

export interface AuthOptions {
  sessionSecret: string;
  sessionTtlMs: number;
  secureCookies: boolean;
  /** Login attempts per client address per minute. */
  loginAttemptsPerAddress: number;
  /** Failed logins per user per 5 minutes before the user is locked out for the rest of the window. */
  loginFailuresPerUser: number;
}

export const SESSION_COOKIE = 'ipfe_session';
const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request of this method changes state (and so must carry the CSRF token). */
export const isWrite = (method: string) => !READ_METHODS.has(method.toUpperCase());

/** Who may call a route: its `access`, else viewer for reads and operator for writes. */
export const accessOf = (method: string, access: 'public' | Role | undefined) =>
  access ?? (isWrite(method) ? 'operator' : 'viewer');

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function rateLimited(res: unknown, what: string): ApiError {
  const seconds = res instanceof RateLimiterRes ? Math.ceil(res.msBeforeNext / 1000) : 60;
  return new ApiError(
    'RATE_LIMITED',
    `Too many login attempts for this ${what}; try again in ${seconds} s`,
    [],
    {},
    {
      'retry-after': String(seconds),
    },
  );
}

/**
 * A login rate limit: in memory on SQLite (one OAM), in the store on PostgreSQL, so that every
 * OAM of a cluster counts the same attempts (the table is the store's, made by its migrations).
 */
function loginLimiter(store: Store, keyPrefix: string, points: number, duration: number) {
  if (store.engine === 'sqlite') return new RateLimiterMemory({ keyPrefix, points, duration });
  // The limiter needs only `query`; through the store's pool it follows the primary.
  const storeClient = {
    query: async (q: { text: string; values?: unknown[] }) => {
      const { rows } = await store.db.executeQuery(CompiledQuery.raw(q.text, q.values ?? []));
      return { rows, rowCount: rows.length };
    },
  };
  return new RateLimiterPostgres({
    storeClient,
    storeType: 'pool',
    tableName: 'login_limits',
    tableCreated: true,
    keyPrefix,
    points,
    duration,
  }) as RateLimiterAbstract;
}

/**
 * Sessions (cookie + the OAM's store), the role check of every route, the CSRF check of every
 * state-changing request, and login with rate limits per address and per user.
 */
export default fp(
  async (app, opts: AuthOptions) => {
    await app.register(fastifyCookie);
    const store = new StoreSessionStore(app.store);
    // The OAMs of a cluster sign cookies alike: a session made on one is valid on all.
    const sessionSecret =
      app.store.engine === 'postgres'
        ? await app.store.sharedSecret('session', () => randomBytes(32).toString('base64url'))
        : opts.sessionSecret;
    if (sessionSecret.length < 32)
      throw new Error('the session secret must have 32 characters or more');
    await app.register(fastifySession, {
      // The cookie's HMAC, checked on every request and made again when the session is restored,
      // computed once per session cookie.
      secret: new RememberingSigner(sessionSecret),
      cookieName: SESSION_COOKIE,
      store,
      saveUninitialized: false,
      // An absolute lifetime: renewing the session on every request would cost a write (and an
      // fsync) per request, and would keep a polling tab logged in forever.
      rolling: false,
      cookie: {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: opts.secureCookies,
        maxAge: opts.sessionTtlMs,
      },
    });

    const perAddress = loginLimiter(app.store, 'address', opts.loginAttemptsPerAddress, 60);
    const perUser = loginLimiter(app.store, 'user', opts.loginFailuresPerUser, 300);

    app.decorateRequest('user', null);
    app.decorateRequest('apiToken', null);

    /**
     * `Authorization: Bearer <API token>`: the request is its user's, with the user's role as it is
     * now. Never together with a session cookie: which of the two would the request be?
     */
    const authenticateToken = async (request: FastifyRequest, authorization: string) => {
      if (request.cookies[SESSION_COOKIE] !== undefined) {
        throw new ApiError(
          'UNAUTHENTICATED',
          'Send either the session cookie or an API token (Authorization: Bearer), not both',
        );
      }
      const match = /^Bearer +(\S+) *$/i.exec(authorization);
      if (!match) {
        throw new ApiError(
          'UNAUTHENTICATED',
          'The Authorization header must be "Bearer <API token>"',
        );
      }
      const found = await app.apiTokensRepository.find(match[1]!);
      const user = found && (await app.usersRepository.find(found.token.user));
      if (!found || !user) {
        throw new ApiError(
          'UNAUTHENTICATED',
          'Unknown API token (never issued, or its user was deleted)',
        );
      }
      if (found.revokedAt) {
        throw new ApiError(
          'UNAUTHENTICATED',
          `API token revoked (${found.token.name}, at ${found.revokedAt}); create a new one`,
        );
      }
      // "Last used" is a courtesy: a store that is read-only (its primary failing over) still
      // serves this request's reads.
      await app.apiTokensRepository.touch(found.token).catch((err: unknown) => {
        if (!storeUnavailableReason(err)) throw err;
      });
      request.user = user;
      request.apiToken = found.token;
    };

    app.decorate('login', async (request: FastifyRequest, username: string, password: string) => {
      try {
        await perAddress.consume(request.ip);
      } catch (res) {
        // An error is the store's (unreachable, say), not a limit reached.
        if (res instanceof Error) throw res;
        throw rateLimited(res, 'address');
      }
      const userKey = username.toLowerCase();
      const locked = await perUser.get(userKey);
      if (locked && locked.remainingPoints <= 0) throw rateLimited(locked, 'user');
      const user = await app.usersRepository.find(username);
      const valid = await verifyPassword(
        password,
        user?.passwordHash ?? (await DUMMY_HASH_PROMISE),
      );
      if (!user || !valid) {
        await perUser.penalty(userKey, 1);
        throw new ApiError('UNAUTHENTICATED', 'Wrong user name or password');
      }
      await perUser.delete(userKey);
      // A new session id at login: a session fixed before login is worth nothing after it.
      await request.session.regenerate();
      request.session.set('username', user.name);
      request.session.set('epoch', user.sessionEpoch);
      request.session.set('csrfToken', randomBytes(32).toString('base64url'));
      request.user = user;
      return user;
    });

    app.addHook('onRequest', async (request) => {
      const username = request.session.get('username');
      if (username) {
        // The user as read with the session (one statement), else read now.
        const read = store.takeUser(request.session.sessionId);
        const user =
          read !== undefined && (read === null || read.name === username)
            ? read
            : await app.usersRepository.find(username);
        if (user && user.sessionEpoch === request.session.get('epoch')) request.user = user;
      }
      // The GUI's files and the API documentation are public; everything else under /api/ is not.
      if (!request.url.startsWith('/api/') || request.url.startsWith('/api/docs')) return;
      const method = request.method.toUpperCase();
      const access = accessOf(method, request.routeOptions.config.access);
      if (access === 'public') return;
      const authorization = request.headers.authorization;
      if (authorization !== undefined) await authenticateToken(request, authorization);
      if (!request.user)
        throw new ApiError('UNAUTHENTICATED', 'Log in first (your session may have expired)');
      // A token request carries no cookie, so no other site can make a browser send it: no CSRF.
      if (isWrite(method) && !request.apiToken) {
        const sent = request.headers['x-csrf-token'];
        const expected = request.session.get('csrfToken');
        if (typeof sent !== 'string' || !expected || !sameToken(sent, expected)) {
          throw new ApiError(
            'CSRF',
            'Missing or wrong x-csrf-token header: send the csrfToken of your login',
          );
        }
      }
      if (RANK[request.user.role] < RANK[access]) {
        throw new ApiError(
          'FORBIDDEN',
          `This needs the ${access} role; you are ${request.user.role}`,
        );
      }
    });
  },
  { name: 'auth', dependencies: ['db', 'users-repository', 'api-tokens-repository'] },
);
