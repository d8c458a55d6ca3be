import type { Session } from 'fastify';
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { StoreSessionStore } from '../src/repositories/session-store.ts';
import { Store } from '../src/store/store.ts';
import {
  addUser,
  ADMIN_PASSWORD,
  cookieOf,
  leastLoadTargetSet,
  login,
  PASSWORD,
  seedPrerequisites,
} from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t } = useTestApp({ login: false, loginFailuresPerUser: 3, loginAttemptsPerAddress: 10 });

const attempt = (password: string, username = 'admin') =>
  t.app.inject({ method: 'POST', url: '/api/session', payload: { username, password } });

describe('POST /api/session', () => {
  it('logs in with the right password and answers the user, role and a CSRF token', async () => {
    const response = await attempt(ADMIN_PASSWORD);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      user: { name: 'admin', role: 'admin' },
      csrfToken: expect.any(String),
    });
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
  });

  it('refuses a wrong password and an unknown user alike, without a session', async () => {
    for (const response of [await attempt('wrong-password'), await attempt('x', 'nobody')]) {
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'Wrong user name or password',
      });
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('issues a new session id at login, so a fixed session id is worth nothing', async () => {
    const first = await login(t.app);
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/session',
      payload: { username: 'admin', password: ADMIN_PASSWORD },
      headers: { cookie: first.cookie },
    });
    expect(cookieOf(again)).not.toBe(first.cookie);
  });

  it('names the missing field of a malformed login', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/session',
      payload: { username: 'admin' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.fields).toEqual([
      { path: 'password', message: 'password is required' },
    ]);
  });

  it('locks a user out after repeated failures, even for the right password, with Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt('wrong-password')).statusCode).toBe(401);
    const locked = await attempt(ADMIN_PASSWORD);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error.code).toBe('RATE_LIMITED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('limits login attempts per client address across user names', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await attempt('wrong-password', `user${i}`)).statusCode);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe('GET and DELETE /api/session', () => {
  it('answers user null without a session (200: not an error, no cookie) and the user with one', async () => {
    const nobody = await t.app.inject({ method: 'GET', url: '/api/session' });
    expect(nobody.statusCode).toBe(200);
    expect(nobody.json()).toEqual({ user: null });
    expect(nobody.headers['set-cookie']).toBeUndefined();
    const client = await login(t.app);
    const response = await client.get('/api/session');
    expect(response.json()).toEqual({
      user: { name: 'admin', role: 'admin' },
      csrfToken: client.csrfToken,
    });
  });

  it('logs out: the old cookie no longer opens anything', async () => {
    const client = await login(t.app);
    expect((await client.del('/api/session')).statusCode).toBe(204);
    const after = await client.get('/api/options');
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('UNAUTHENTICATED');
    expect((await client.get('/api/session')).json()).toEqual({ user: null });
  });

  it('refuses a logout without the CSRF token', async () => {
    const client = await login(t.app);
    const response = await t.app.inject({
      method: 'DELETE',
      url: '/api/session',
      headers: { cookie: client.cookie },
    });
    expect(response.statusCode).toBe(403);
    expect((await client.get('/api/session')).statusCode).toBe(200);
  });

  it('leaves the session as stored on reads: no write, no new cookie, the 8 h counted from login', async () => {
    const client = await login(t.app);
    const stored = () =>
      t.app.store.db.selectFrom('sessions').select(['id', 'data', 'expires_at']).execute();
    const atLogin = await stored();
    expect(atLogin).toHaveLength(1);
    for (const url of ['/api/session', '/api/target-sets', '/api/options']) {
      await new Promise((resolve) => setTimeout(resolve, 5)); // a rewrite would move the expiry
      const response = await client.get(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    expect(await stored()).toEqual(atLogin);
  });
});

describe('CSRF', () => {
  it('refuses a change with a missing or wrong x-csrf-token and changes nothing', async () => {
    const client = await login(t.app);
    for (const headers of [
      { cookie: client.cookie },
      { cookie: client.cookie, 'x-csrf-token': 'forged' },
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/xsi-networks',
        headers,
        payload: { name: 'xsi1', cidr: '10.0.0.0/24' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('CSRF');
    }
    expect(await t.app.configRepository.count()).toBe(0);
  });

  it("refuses another session's token", async () => {
    const a = await login(t.app);
    const b = await login(t.app);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/xsi-networks',
      headers: { cookie: a.cookie, 'x-csrf-token': b.csrfToken },
      payload: { name: 'xsi1', cidr: '10.0.0.0/24' },
    });
    expect(response.statusCode).toBe(403);
  });
});

describe('what another process writes to the store', () => {
  // Another API process on the same store: its logout, user changes and deletions, and an expiry,
  // count on the very next request here, however often the session was used before.
  const fromAnotherProcess = async (statement: string) => {
    const other = await Store.open(t.location);
    try {
      await sql.raw(statement).execute(other.db);
    } finally {
      await other.close();
    }
  };

  it('ends a session there logged out, expired, of a user deleted or with a new password', async () => {
    const changes: [string, (name: string) => Promise<void>][] = [
      ['logout', () => fromAnotherProcess('DELETE FROM sessions')],
      ['expiry', () => fromAnotherProcess(`UPDATE sessions SET expires_at = ${Date.now() - 1}`)],
      ['deletion', (name) => fromAnotherProcess(`DELETE FROM users WHERE name = '${name}'`)],
      [
        'new password',
        (name) =>
          fromAnotherProcess(
            `UPDATE users SET session_epoch = session_epoch + 1 WHERE name = '${name}'`,
          ),
      ],
    ];
    for (const [what, change] of changes) {
      const name = `user-${what.replace(' ', '-')}`;
      await addUser(t.app, name, 'operator');
      const client = await login(t.app, name, PASSWORD);
      for (let i = 0; i < 3; i++) expect((await client.get('/api/session')).statusCode).toBe(200);
      await change(name);
      const after = await client.get('/api/session');
      expect(after.json(), what).toEqual({ user: null });
      expect((await client.get('/api/options')).statusCode, what).toBe(401);
      await fromAnotherProcess('DELETE FROM sessions');
    }
  });

  it('takes a role changed there into effect on the next request', async () => {
    const admin = await login(t.app);
    await seedPrerequisites(admin);
    await addUser(t.app, 'otto', 'operator');
    const otto = await login(t.app, 'otto', PASSWORD);
    expect((await otto.get('/api/session')).json().user.role).toBe('operator');
    await fromAnotherProcess("UPDATE users SET role = 'viewer' WHERE name = 'otto'");
    expect((await otto.get('/api/session')).json().user.role).toBe('viewer');
    const refused = await otto.post('/api/target-sets', leastLoadTargetSet());
    expect(refused.statusCode).toBe(403);
    await fromAnotherProcess("UPDATE users SET role = 'operator' WHERE name = 'otto'");
    expect((await otto.post('/api/target-sets', leastLoadTargetSet())).statusCode).toBe(201);
  });
});

describe('the user read with the session', () => {
  it('is the user of each request, many sessions at once', async () => {
    await addUser(t.app, 'vera', 'viewer');
    await addUser(t.app, 'otto', 'operator');
    const clients = [
      await login(t.app),
      await login(t.app, 'vera', PASSWORD),
      await login(t.app, 'otto', PASSWORD),
    ];
    const names = ['admin', 'vera', 'otto'];
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => clients[i % 3]!.get('/api/session')),
    );
    expect(answers.map((a) => a.json().user.name)).toEqual(
      Array.from({ length: 60 }, (_, i) => names[i % 3]),
    );
  });

  it('is handed over once, and only for the session it was read with', async () => {
    const client = await login(t.app);
    const store = new StoreSessionStore(t.app.store);
    const { id } = await t.app.store.db
      .selectFrom('sessions')
      .select('id')
      .executeTakeFirstOrThrow();
    const get = (sessionId: string) =>
      new Promise<Session | null | undefined>((resolve, reject) =>
        store.get(sessionId, (err, session) => (err ? reject(err) : resolve(session))),
      );

    expect((await get(id))?.username).toBe('admin');
    expect(store.takeUser('another-session')).toBeUndefined();
    expect(store.takeUser(id)).toBeUndefined(); // a look at another session's took it

    await get(id);
    expect(store.takeUser(id)).toMatchObject({ name: 'admin', role: 'admin', sessionEpoch: 0 });
    expect(store.takeUser(id)).toBeUndefined(); // taken

    await get(id);
    expect(await get('no-such-session')).toBeNull();
    expect(store.takeUser(id)).toBeUndefined(); // the last read was of another session

    await addUser(t.app, 'root2', 'admin');
    await t.app.usersRepository.delete('admin');
    expect((await get(id))?.username).toBe('admin');
    expect(store.takeUser(id)).toBeNull(); // read with it: no such user
    expect((await client.get('/api/session')).json()).toEqual({ user: null });
  });
});
