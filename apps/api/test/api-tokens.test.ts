import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addUser, login, PASSWORD, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp({ seed: true });

/** A request that carries only the token: no cookie, no CSRF header. */
const withToken = (
  secret: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
) => t.app.inject({ method, url, headers: { authorization: `Bearer ${secret}` }, payload });

async function tokenOf(client: typeof admin, name = 'ci') {
  const created = await client.post('/api/users/me/tokens', { name });
  expect(created.statusCode).toBe(201);
  return created.json() as { token: { id: number; name: string }; secret: string };
}

describe('API tokens', () => {
  it('are shown once at creation, stored only as a hash, and listed without their secret', async () => {
    const { token, secret } = await tokenOf(admin, 'gitops pipeline');
    expect(secret).toMatch(/^ipfe_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({ user: 'admin', name: 'gitops pipeline', lastUsedAt: null });
    const list = await admin.get('/api/users/me/tokens');
    expect(list.json().items).toEqual([
      {
        id: token.id,
        user: 'admin',
        name: 'gitops pipeline',
        createdAt: expect.any(String),
        lastUsedAt: null,
      },
    ]);
    expect(list.body).not.toContain(secret.slice(5));
    const rows = await t.app.store.db.selectFrom('api_tokens').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(secret.slice(5));
    if (t.app.store.engine === 'sqlite') {
      const file = readFileSync(t.databaseFile);
      expect(file.includes(Buffer.from(secret.slice(5)))).toBe(false);
    }
  });

  it('authenticate as their user with no cookie and no CSRF header, and record the last use', async () => {
    const { secret } = await tokenOf(admin);
    const before = await snapshot(t.app);
    const created = await withToken(secret, 'POST', '/api/xsi-networks', {
      name: 'xsi9',
      cidr: '10.9.0.0/16',
    });
    expect(created.statusCode).toBe(201);
    expect((await snapshot(t.app)).revisions).toBe(before.revisions + 1);
    const log = (await admin.get('/api/revisions?limit=1')).json().items[0];
    expect(log.author).toBe('admin');
    const listed = (await admin.get('/api/users/me/tokens')).json().items[0];
    expect(listed.lastUsedAt).toEqual(expect.any(String));
  });

  it("carry their user's role as it is now: a viewer reads but cannot change; a demotion counts at once", async () => {
    await addUser(t.app, 'olivia', 'operator');
    const olivia = await login(t.app, 'olivia', PASSWORD);
    const { secret } = await tokenOf(olivia);
    expect(
      (await withToken(secret, 'POST', '/api/xsi-networks', { name: 'a', cidr: '10.1.0.0/16' }))
        .statusCode,
    ).toBe(201);
    expect((await admin.edit('/api/users/olivia', { role: 'viewer' })).statusCode).toBe(200);
    const refused = await withToken(secret, 'POST', '/api/xsi-networks', {
      name: 'b',
      cidr: '10.2.0.0/16',
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toBe('This needs the operator role; you are viewer');
    expect((await withToken(secret, 'GET', '/api/target-sets')).statusCode).toBe(200);
  });

  it('stop working when revoked (401 saying so) or when their user is deleted (401 unknown)', async () => {
    await addUser(t.app, 'olivia', 'operator');
    const olivia = await login(t.app, 'olivia', PASSWORD);
    const first = await tokenOf(olivia, 'first');
    const second = await tokenOf(olivia, 'second');
    expect((await olivia.del(`/api/users/me/tokens/${first.token.id}`)).statusCode).toBe(204);
    const revoked = await withToken(first.secret, 'GET', '/api/options');
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error.message).toMatch(
      /^API token revoked \(first, at .+\); create a new one$/,
    );
    expect(
      (await olivia.get('/api/users/me/tokens')).json().items.map((x: { name: string }) => x.name),
    ).toEqual(['second']);
    expect((await withToken(second.secret, 'GET', '/api/options')).statusCode).toBe(200);
    expect((await admin.remove('/api/users/olivia')).statusCode).toBe(204);
    const gone = await withToken(second.secret, 'GET', '/api/options');
    expect(gone.statusCode).toBe(401);
    expect(gone.json().error.message).toBe(
      'Unknown API token (never issued, or its user was deleted)',
    );
    expect(await t.app.store.db.selectFrom('api_tokens').selectAll().execute()).toEqual([]);
  });

  it('refuse an unknown token, a malformed header, a token beside a session cookie, and minting a token', async () => {
    const { secret } = await tokenOf(admin);
    const unknown = await withToken('ipfe_not-a-token', 'GET', '/api/options');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.message).toMatch(/^Unknown API token/);
    const basic = await t.app.inject({
      method: 'GET',
      url: '/api/options',
      headers: { authorization: 'Basic YWRtaW4=' },
    });
    expect(basic.statusCode).toBe(401);
    expect(basic.json().error.message).toBe(
      'The Authorization header must be "Bearer <API token>"',
    );
    const both = await admin.request({
      method: 'GET',
      url: '/api/options',
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(both.statusCode).toBe(401);
    expect(both.json().error.message).toMatch(/either the session cookie or an API token/);
    const minted = await withToken(secret, 'POST', '/api/users/me/tokens', { name: 'more' });
    expect(minted.statusCode).toBe(403);
    expect(minted.json().error.message).toMatch(/cannot create tokens/);
    expect((await admin.get('/api/users/me/tokens')).json().items).toHaveLength(1);
  });

  it('refuse a bad token name, naming the field, and creating nothing', async () => {
    for (const name of ['', '   ', 'x'.repeat(65), 'bad\nname', 42]) {
      const refused = await admin.post('/api/users/me/tokens', { name });
      expect(refused.statusCode, JSON.stringify(name)).toBe(400);
      expect(refused.json().error.fields[0].path).toBe('name');
    }
    expect(
      (await admin.post('/api/users/me/tokens', { name: 'ok', role: 'admin' })).json().error.fields,
    ).toEqual([{ path: 'role', message: 'role is not a field here' }]);
    expect((await admin.get('/api/users/me/tokens')).json().items).toEqual([]);
  });

  it("let a user revoke only their own tokens; an admin lists and revokes everyone's", async () => {
    await addUser(t.app, 'victor', 'viewer');
    const victor = await login(t.app, 'victor', PASSWORD);
    const mine = await tokenOf(admin, 'admin-ci');
    const his = await tokenOf(victor, 'dashboard');
    expect((await victor.del(`/api/users/me/tokens/${mine.token.id}`)).statusCode).toBe(404);
    expect((await victor.get('/api/tokens')).statusCode).toBe(403);
    const all = (await admin.get('/api/tokens')).json().items;
    expect(all.map((x: { user: string; name: string }) => `${x.user}/${x.name}`)).toEqual([
      'admin/admin-ci',
      'victor/dashboard',
    ]);
    expect((await admin.del(`/api/tokens/${his.token.id}`)).statusCode).toBe(204);
    expect((await withToken(his.secret, 'GET', '/api/ipfe')).statusCode).toBe(401);
    expect((await admin.del(`/api/tokens/${his.token.id}`)).statusCode).toBe(404);
    expect((await admin.del('/api/tokens/abc')).json().error.fields[0].path).toBe('id');
    expect((await withToken(mine.secret, 'GET', '/api/ipfe')).statusCode).toBe(200);
  });
});
