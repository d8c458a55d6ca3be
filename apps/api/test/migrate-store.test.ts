import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { inject, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { MOVED_TABLES } from '../src/services/migrate-store.ts';
import { login, seedPrerequisites, startApp, testEngine } from './helpers.ts';
import { createDatabase } from './postgres-server.ts';

const tsx = new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url).pathname;
const cli = new URL('../src/cli/migrate-store.ts', import.meta.url).pathname;

function migrate(...args: string[]) {
  const run = spawnSync(process.execPath, [tsx, cli, ...args], { encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
}

/** `npm run migrate-store`: an OAM's SQLite file moved into PostgreSQL (issue 25 item 6). */
describe.runIf(testEngine() === 'postgres')('moving a SQLite store into PostgreSQL', () => {
  it('moves the history, the users and the alarm log; again: nothing to do; a foreign target: refused unless --replace', async () => {
    // An OAM on SQLite (an empty databaseUrl: the file), with a history of its own.
    const old = await startApp({ databaseUrl: '' });
    const target = await createDatabase(inject('postgresAdminUrl')!);
    const other = await createDatabase(inject('postgresAdminUrl')!);
    try {
      expect(old.app.store.engine).toBe('sqlite');
      const admin = await login(old.app);
      await seedPrerequisites(admin);
      for (let i = 0; i < 3; i++)
        expect(
          (await admin.post('/api/xsi-networks', { name: `m${i}`, cidr: `10.9.${i}.0/24` }))
            .statusCode,
        ).toBe(201);
      const history = (await admin.get('/api/revisions?limit=1000')).json() as {
        items: { number: number; summary: string }[];
      };
      await old.app.store.db
        .insertInto('alarms')
        .values({
          slot: 'A1',
          code: 5009,
          name: 'No Available Servers',
          severity: 'critical',
          target_set: 1,
          server: null,
          text: 'moved with the history',
          raised_at: new Date().toISOString(),
          cleared_at: null,
        })
        .execute();
      const rowsOf = async (app: typeof old.app) =>
        Object.fromEntries(
          await Promise.all(
            MOVED_TABLES.map(async (t) => {
              const rows = await app.store.db
                .selectFrom(t)
                .selectAll()
                .orderBy(sql.lit(1))
                .execute();
              return [t, rows] as const;
            }),
          ),
        );
      const before = await rowsOf(old.app);
      expect(before.alarms).toHaveLength(1);
      expect(before.audit!.length).toBeGreaterThan(0);
      await old.app.close(); // the file stays: it is what is moved
      expect(history.items.length).toBeGreaterThan(3);

      const first = migrate('--from', old.databaseFile, '--to', target.url);
      expect(first.out).toMatch(new RegExp(`moved .* ${history.items.length} revisions`));
      expect(first.status).toBe(0);
      expect(first.out).not.toContain('ipfe-test-password');

      // The new store answers as the old one did, and counts on from where it stopped.
      const moved = await startApp({ databaseUrl: target.url });
      try {
        const client = await login(moved.app); // admin's password moved with its hash
        const after = (await client.get('/api/revisions?limit=1000')).json() as typeof history;
        expect(after.items).toEqual(history.items);
        // Every row of every moved table, as it was (the login above audits after the copy).
        const copied = await rowsOf(moved.app);
        for (const table of MOVED_TABLES)
          expect(copied[table]!.slice(0, before[table]!.length), table).toEqual(before[table]);
        expect((await client.get('/api/alarms')).body).toContain('moved with the history');
        const next = await client.post('/api/xsi-networks', { name: 'after', cidr: '10.9.9.0/24' });
        expect(next.statusCode).toBe(201);
        expect(Number(next.headers['x-ipfe-revision'])).toBe(history.items[0]!.number + 1);
      } finally {
        await moved.close();
      }

      // Once more: the target holds a newer history now (one more revision) — refused.
      const again = migrate('--from', old.databaseFile, '--to', target.url);
      expect(again.status).toBe(1);
      expect(again.out).toMatch(/not empty .*revisions.*--replace/);

      // Into a second database twice: moved, then nothing to do.
      expect(migrate('--from', old.databaseFile, '--to', other.url).status).toBe(0);
      const twice = migrate('--from', old.databaseFile, '--to', other.url);
      expect(twice.out).toMatch(/already .*nothing to do/);
      expect(twice.status).toBe(0);

      // --replace overwrites the first target with the SQLite history again.
      const replaced = migrate('--from', old.databaseFile, '--to', target.url, '--replace');
      expect(replaced.status).toBe(0);
      const back = await startApp({ databaseUrl: target.url });
      try {
        const client = await login(back.app);
        const items = ((await client.get('/api/revisions?limit=1000')).json() as typeof history)
          .items;
        expect(items).toEqual(history.items);
      } finally {
        await back.close();
      }
    } finally {
      await target.drop();
      await other.drop();
      rmSync(old.dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('says what is wrong with its arguments, exit 2', () => {
    expect(migrate('--to', 'postgres://x@127.0.0.1:1/x')).toMatchObject({ status: 2 });
    const notPg = migrate('--from', 'a.sqlite', '--to', 'mysql://x');
    expect(notPg.status).toBe(2);
    expect(notPg.out).toMatch(/--to must be a postgres:\/\/ URL/);
  });
});
