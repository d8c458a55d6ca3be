import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type App, type AppOptions } from '../src/app.ts';
import { ensureAdmin } from '../src/bootstrap.ts';
import { hashPassword } from '../src/domain/passwords.ts';
import type { Role } from '../src/repositories/users-repository.ts';
import type { Engine, StoreLocation } from '../src/store/store.ts';
import { inject } from 'vitest';
import { createDatabase } from './postgres-server.ts';
import type {} from './postgres-global-setup.ts';

export const ADMIN_PASSWORD = 'admin-secret-1';
export const PASSWORD = 'password-123';

export interface TestApp {
  app: App;
  dir: string;
  /** The SQLite file of the store; on PostgreSQL (`location` a URL), a path that is never made. */
  databaseFile: string;
  /** Where the app's store is: the SQLite file, or its own fresh PostgreSQL database. */
  location: StoreLocation;
  close(): Promise<void>;
}

/** Which engine the API suite runs on: PostgreSQL when its global setup started a server. */
export function testEngine(): Engine {
  return inject('postgresAdminUrl') ? 'postgres' : 'sqlite';
}

/**
 * The real app on a real store in a fresh temporary folder, with user admin: a SQLite file there,
 * or (the suite's PostgreSQL pass) a database of its own on the run's server, dropped on close.
 */
export async function startApp(
  options: Partial<AppOptions> & { dir?: string } = {},
): Promise<TestApp> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'ipfe-api-test-'));
  const databaseFile = join(dir, 'ipfe-oam.sqlite');
  const adminUrl = inject('postgresAdminUrl');
  const database =
    adminUrl && options.databaseUrl === undefined ? await createDatabase(adminUrl) : null;
  const databaseUrl = options.databaseUrl ?? database?.url;
  const app = await buildApp({
    databaseFile,
    sessionSecret: 'test-session-secret-of-at-least-32-characters',
    agentSync: { enabled: false },
    ...options,
    ...(databaseUrl ? { databaseUrl } : {}),
  }).catch(async (err: unknown) => {
    await database?.drop();
    throw err;
  });
  await ensureAdmin(app.usersRepository, dir, ADMIN_PASSWORD, () => {});
  return {
    app,
    dir,
    databaseFile,
    location: databaseUrl ? { url: databaseUrl } : { file: databaseFile },
    async close() {
      await app.close();
      await database?.drop();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function addUser(app: App, name: string, role: Role, password = PASSWORD) {
  await app.usersRepository.create(name, role, await hashPassword(password));
}

/** A logged-in client: sends its cookie, and its CSRF token on every change. */
export interface Client {
  csrfToken: string;
  cookie: string;
  request(opts: InjectOptions): Promise<LightMyRequestResponse>;
  get(url: string): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  put(url: string, body: unknown, etag?: string): Promise<LightMyRequestResponse>;
  del(url: string, etag?: string): Promise<LightMyRequestResponse>;
  /** GET the entity, then PUT it with its ETag. */
  edit(url: string, body: unknown): Promise<LightMyRequestResponse>;
  remove(url: string): Promise<LightMyRequestResponse>;
}

export function cookieOf(response: LightMyRequestResponse): string {
  const setCookie = response.headers['set-cookie'];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!first) throw new Error('no session cookie in the response');
  return first.split(';')[0]!;
}

export async function login(
  app: App,
  username = 'admin',
  password = ADMIN_PASSWORD,
): Promise<Client> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/session',
    payload: { username, password },
  });
  if (response.statusCode !== 200)
    throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  const csrfToken = response.json().csrfToken as string;
  const cookie = cookieOf(response);
  const request = (opts: InjectOptions) =>
    app.inject({
      ...opts,
      headers: { cookie, 'x-csrf-token': csrfToken, ...(opts.headers ?? {}) },
    });
  const client: Client = {
    csrfToken,
    cookie,
    request,
    get: (url) => request({ method: 'GET', url }),
    post: (url, body) =>
      body === undefined
        ? request({ method: 'POST', url })
        : request({ method: 'POST', url, payload: body as object }),
    put: (url, body, etag) =>
      request({
        method: 'PUT',
        url,
        payload: body as object,
        headers: etag ? { 'if-match': etag } : {},
      }),
    del: (url, etag) =>
      request({ method: 'DELETE', url, headers: etag ? { 'if-match': etag } : {} }),
    async edit(url, body) {
      const current = await client.get(url);
      return client.put(url, body, current.headers.etag as string);
    },
    async remove(url) {
      const current = await client.get(url);
      return client.del(url, current.headers.etag as string);
    },
  };
  return client;
}

/** What the newcomer configures before a Target Set: IPFE A1/A2, an XSI network, three servers. */
export async function seedPrerequisites(client: Client) {
  const ok = (response: LightMyRequestResponse) => {
    if (response.statusCode >= 300)
      throw new Error(`seed failed: ${response.statusCode} ${response.body}`);
    return response;
  };
  ok(
    await client.edit('/api/options', {
      ipfe: { A1: { address: '127.250.0.11' }, A2: { address: '127.250.0.12' } },
    }),
  );
  ok(await client.post('/api/xsi-networks', { name: 'xsi1', cidr: '127.1.0.0/16' }));
  ok(await client.post('/api/xsi-networks', { name: 'xsi6', cidr: '2001:db8::/64' }));
  for (const i of [1, 2, 3]) {
    ok(
      await client.post('/api/app-servers', {
        name: `mp${i}`,
        addresses: [`127.1.1.${i}`, `2001:db8::${i}`],
      }),
    );
  }
}

/**
 * The OAM's side of a lab with real agents: IPFEs A1 and A2 (mates beaconing every 100 ms, 600 ms
 * timeout), one XSI network, servers mp1… and Target Set 1 over them on `tsa`.
 */
export async function configureMatesLab(
  client: Client,
  lab: { a1: string; a2: string; cidr: string; servers: string[]; tsa: string; protocols?: string },
) {
  const ok = (response: LightMyRequestResponse) => {
    if (response.statusCode >= 300)
      throw new Error(`lab set-up failed: ${response.statusCode} ${response.body}`);
  };
  ok(
    await client.edit('/api/options', {
      ipfe: { A1: { address: lab.a1 }, A2: { address: lab.a2 } },
      mateIntervalMs: 100,
      mateTimeoutMs: 600,
    }),
  );
  ok(await client.post('/api/xsi-networks', { name: 'lab', cidr: lab.cidr }));
  for (const [i, address] of lab.servers.entries())
    ok(await client.post('/api/app-servers', { name: `mp${i + 1}`, addresses: [address] }));
  ok(
    await client.post('/api/target-sets', {
      family: 'ipv4',
      algorithm: 'hash',
      ...(lab.protocols && { protocols: lab.protocols }),
      primary: { address: lab.tsa },
      servers: lab.servers.map((address) => ({ address })),
    }),
  );
}

export const leastLoadTargetSet = (overrides: Record<string, unknown> = {}) => ({
  family: 'ipv4',
  algorithm: 'leastLoad',
  primary: { address: '127.1.0.100', activeIpfe: 'A1' },
  servers: [{ address: '127.1.1.1' }, { address: '127.1.1.2' }, { address: '127.1.1.3' }],
  ...overrides,
});

/** What a rejected write must leave unchanged. */
export async function snapshot(app: App) {
  return {
    revisions: await app.configRepository.count(),
    sha256: (await app.configRepository.latestInfo())?.sha256 ?? null,
  };
}

export function fieldsOf(response: LightMyRequestResponse): Record<string, string> {
  const body = response.json() as { error: { fields: { path: string; message: string }[] } };
  return Object.fromEntries(body.error.fields.map((f) => [f.path, f.message]));
}

/** Polls `probe` every 100 ms until it answers something truthy (a throw counts as not yet). */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  timeoutMs = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value) return value as NonNullable<T>;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
