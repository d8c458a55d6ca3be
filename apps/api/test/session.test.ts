import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, cookieOf, login, startApp, type TestApp } from './helpers.ts';

let t: TestApp;
beforeEach(async () => {
  t = await startApp({ loginFailuresPerUser: 3, loginAttemptsPerAddress: 10 });
});
afterEach(() => t.close());

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
  it('answers 401 without a session and the user with one', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/session' })).statusCode).toBe(401);
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
    const stored = () => t.app.db.prepare('SELECT id, data, expires_at FROM sessions').all();
    const atLogin = stored();
    expect(atLogin).toHaveLength(1);
    for (const url of ['/api/session', '/api/target-sets', '/api/options']) {
      await new Promise((resolve) => setTimeout(resolve, 5)); // a rewrite would move the expiry
      const response = await client.get(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    expect(stored()).toEqual(atLogin);
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
    expect(t.app.configRepository.count()).toBe(0);
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
