import { beforeEach, describe, expect, it } from 'vitest';
import {
  addUser,
  fieldsOf,
  leastLoadTargetSet,
  login,
  PASSWORD,
  seedPrerequisites,
  snapshot,
  type Client,
} from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp();

describe('/api/users', () => {
  it('lets an admin create, list, change and delete users; passwords are never shown', async () => {
    const created = await admin.post('/api/users', {
      name: 'olivia',
      password: PASSWORD,
      role: 'operator',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      name: 'olivia',
      role: 'operator',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const list = (await admin.get('/api/users')).json().items;
    expect(list.map((u: { name: string }) => u.name)).toEqual(['admin', 'olivia']);
    expect(JSON.stringify(list)).not.toMatch(/scrypt|password/i);
    expect((await admin.edit('/api/users/olivia', { role: 'viewer' })).json().role).toBe('viewer');
    expect((await admin.remove('/api/users/olivia')).statusCode).toBe(204);
    expect((await admin.get('/api/users/olivia')).statusCode).toBe(404);
  });

  it('refuses a duplicate name, a short password and an unknown role', async () => {
    await admin.post('/api/users', { name: 'olivia', password: PASSWORD, role: 'operator' });
    expect(
      (await admin.post('/api/users', { name: 'olivia', password: PASSWORD, role: 'operator' }))
        .statusCode,
    ).toBe(409);
    const bad = await admin.post('/api/users', { name: 'x y', password: 'short', role: 'root' });
    expect(Object.keys(fieldsOf(bad)).sort()).toEqual(['name', 'password', 'role']);
  });

  it('never removes the last admin, by deletion or by demotion', async () => {
    const deleted = await admin.remove('/api/users/admin');
    expect(deleted.statusCode).toBe(409);
    expect(deleted.json().error.code).toBe('LAST_ADMIN');
    expect((await admin.edit('/api/users/admin', { role: 'viewer' })).statusCode).toBe(409);
    await admin.post('/api/users', { name: 'root2', password: PASSWORD, role: 'admin' });
    expect((await admin.edit('/api/users/admin', { role: 'viewer' })).statusCode).toBe(200);
  });

  it('ends the sessions of a user whose password changes, and of a deleted user', async () => {
    await addUser(t.app, 'olivia', 'operator');
    const olivia = await login(t.app, 'olivia', PASSWORD);
    await admin.edit('/api/users/olivia', { password: 'another-password' });
    expect((await olivia.get('/api/options')).statusCode).toBe(401);
    const again = await login(t.app, 'olivia', 'another-password');
    await admin.remove('/api/users/olivia');
    expect((await again.get('/api/options')).statusCode).toBe(401);
  });
});

describe('roles', () => {
  let viewer: Client;
  let operator: Client;
  beforeEach(async () => {
    await addUser(t.app, 'vera', 'viewer');
    await addUser(t.app, 'otto', 'operator');
    viewer = await login(t.app, 'vera', PASSWORD);
    operator = await login(t.app, 'otto', PASSWORD);
    await seedPrerequisites(admin);
  });

  it('lets a viewer read configuration and revisions but change nothing', async () => {
    for (const url of [
      '/api/options',
      '/api/target-sets',
      '/api/xsi-networks',
      '/api/app-servers',
      '/api/peer-node-groups',
      '/api/revisions',
      '/api/export',
    ]) {
      expect((await viewer.get(url)).statusCode, url).toBe(200);
    }
    const before = await snapshot(t.app);
    const attempts = [
      await viewer.post('/api/target-sets', leastLoadTargetSet()),
      await viewer.edit('/api/options', {}),
      await viewer.remove('/api/app-servers/mp1'),
      await viewer.post('/api/revisions/1/rollback'),
    ];
    for (const response of attempts) {
      expect(response.statusCode).toBe(403);
      expect(response.json().error).toMatchObject({
        code: 'FORBIDDEN',
        message: 'This needs the operator role; you are viewer',
      });
    }
    expect(await snapshot(t.app)).toEqual(before);
    expect((await viewer.get('/api/users')).statusCode).toBe(403);
  });

  it('lets an operator change configuration, recorded as its author, but not users', async () => {
    expect((await operator.post('/api/target-sets', leastLoadTargetSet())).statusCode).toBe(201);
    expect((await t.app.configRepository.latestInfo())!.author).toBe('otto');
    expect((await operator.get('/api/users')).statusCode).toBe(403);
    expect(
      (await operator.post('/api/users', { name: 'x', password: PASSWORD, role: 'admin' }))
        .statusCode,
    ).toBe(403);
  });

  it('takes a role change into effect at once', async () => {
    await admin.edit('/api/users/otto', { role: 'viewer' });
    expect((await operator.post('/api/target-sets', leastLoadTargetSet())).statusCode).toBe(403);
  });

  it('answers 401 to every configuration route without a session', async () => {
    for (const [method, url] of [
      ['GET', '/api/target-sets'],
      ['POST', '/api/target-sets'],
      ['PUT', '/api/options'],
      ['DELETE', '/api/xsi-networks/xsi1'],
      ['GET', '/api/revisions/1'],
      ['GET', '/api/users'],
    ] as const) {
      const response = await t.app.inject({
        method,
        url,
        payload: method === 'GET' || method === 'DELETE' ? undefined : {},
      });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
  });
});
