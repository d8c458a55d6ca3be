import type { InjectOptions } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { AppOptions } from '../src/app.ts';
import { login, seedPrerequisites, startApp, type Client, type TestApp } from './helpers.ts';

export interface UseTestAppOptions extends Partial<AppOptions> {
  /** 'test' (the default): a fresh app for every test; 'file': one app for the whole file. */
  per?: 'test' | 'file';
  /** Log user admin in (the default); false for tests of the login itself. */
  login?: boolean;
  /** Configure what a Target Set needs first (`seedPrerequisites`): IPFE A1/A2, XSI networks, servers. */
  seed?: boolean;
  /** What every test starts from besides, after the login and the seed. */
  setup?: (admin: Client, t: TestApp) => Promise<unknown>;
  /** Of the start and setup, when they take longer than a hook may by default. */
  timeout?: number;
}

/**
 * The app of a test file: the real app on a real SQLite file (`startApp`), admin logged in and the
 * prerequisites seeded as asked, started before each test (or once per file) and closed after it.
 * `t` and `admin` stand for the app and client of the test that runs, so that a file declares
 * them once: `const { t, admin } = useTestApp({ seed: true });`.
 */
export function useTestApp({
  per = 'test',
  login: logIn = true,
  seed = false,
  setup,
  timeout,
  ...options
}: UseTestAppOptions = {}): { t: TestApp; admin: Client } {
  let current: { t: TestApp; admin: Client | null } | null = null;
  const started = () => {
    if (!current) throw new Error('the test app is used outside a test (before it started)');
    return current;
  };
  const client = () => {
    const { admin } = started();
    if (!admin) throw new Error('useTestApp({ login: false }) logs no one in');
    return admin;
  };
  const [before, after] = per === 'file' ? [beforeAll, afterAll] : [beforeEach, afterEach];
  before(async () => {
    const t = await startApp(options);
    current = { t, admin: null };
    if (!logIn) return;
    const admin = await login(t.app);
    current.admin = admin;
    if (seed) await seedPrerequisites(admin);
    if (setup) await setup(admin, t);
  }, timeout);
  after(async () => {
    const t = current?.t;
    current = null;
    await t?.close();
  });
  const t: TestApp = {
    get app() {
      return started().t.app;
    },
    get dir() {
      return started().t.dir;
    },
    get databaseFile() {
      return started().t.databaseFile;
    },
    get location() {
      return started().t.location;
    },
    close: () => started().t.close(),
  };
  const admin: Client = {
    get csrfToken() {
      return client().csrfToken;
    },
    get cookie() {
      return client().cookie;
    },
    request: (opts: InjectOptions) => client().request(opts),
    get: (url) => client().get(url),
    post: (url, body) => client().post(url, body),
    put: (url, body, etag) => client().put(url, body, etag),
    del: (url, etag) => client().del(url, etag),
    edit: (url, body) => client().edit(url, body),
    remove: (url) => client().remove(url),
  };
  return { t, admin };
}
