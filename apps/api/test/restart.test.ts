import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  addUser,
  leastLoadTargetSet,
  login,
  PASSWORD,
  seedPrerequisites,
  startApp,
} from './helpers.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a restart on the same data file', () => {
  it('finds every committed revision, every user and the open sessions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipfe-restart-'));
    dirs.push(dir);
    const first = await startApp({ dir });
    const admin = await login(first.app);
    await seedPrerequisites(admin);
    await admin.post('/api/target-sets', leastLoadTargetSet());
    await addUser(first.app, 'olivia', 'operator');
    const revisionsBefore = (await admin.get('/api/revisions?limit=1000')).json();
    const documentBefore = (await admin.get('/api/export')).json();
    await first.close();

    const second = await startApp({ dir });
    const reopened = second.app;
    const sessionStillOpen = await reopened.inject({
      method: 'GET',
      url: '/api/session',
      headers: { cookie: admin.cookie },
    });
    expect(sessionStillOpen.json().user).toEqual({ name: 'admin', role: 'admin' });
    const adminAgain = await login(reopened);
    expect((await adminAgain.get('/api/revisions?limit=1000')).json()).toEqual(revisionsBefore);
    expect((await adminAgain.get('/api/export')).json()).toEqual(documentBefore);
    expect(
      (await adminAgain.get('/api/users')).json().items.map((u: { name: string }) => u.name),
    ).toEqual(['admin', 'olivia']);
    await login(reopened, 'olivia', PASSWORD);
    // The next commit continues the numbering.
    const next = await adminAgain.post('/api/xsi-networks', { name: 'more', cidr: '10.9.0.0/16' });
    expect(next.headers['x-ipfe-revision']).toBe(String(revisionsBefore.total + 1));
    await second.close();

    const db = new Database(join(dir, 'ipfe-oam.sqlite'), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
});
