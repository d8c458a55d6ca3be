import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Store } from '../src/store/store.ts';
import { login, seedPrerequisites, startApp, testEngine } from './helpers.ts';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ipfe-store-test-'));
  dirs.push(dir);
  return dir;
};

const MIGRATIONS = new URL('../src/migrations/', import.meta.url).pathname;
const serverFile = new URL('../src/server.ts', import.meta.url).pathname;

/** Starts the real server; answers its exit code and standard error (it must not start). */
async function failedStart(env: Record<string, string>) {
  const failure = await run('npx', ['tsx', serverFile], {
    env: { ...process.env, IPFE_DATA_DIR: tempDir(), PORT: '0', ...env },
    timeout: 60_000,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => e,
  );
  return { code: failure.code, lines: failure.stderr.trim().split('\n') };
}

describe.runIf(testEngine() === 'sqlite')('a SQLite file of before the Kysely store', () => {
  it('keeps its data, and no migration its PRAGMA user_version counts runs again', async () => {
    const file = join(tempDir(), 'ipfe-oam.sqlite');
    // The file as the OAM made it then: the five migrations of that time applied, counted in
    // user_version.
    const old = new Database(file);
    for (const name of readdirSync(MIGRATIONS)
      .filter((f) => f.endsWith('.sql') && f < '006')
      .sort())
      old.exec(readFileSync(MIGRATIONS + name, 'utf8'));
    old.pragma('user_version = 5');
    old
      .prepare(
        `INSERT INTO revisions (number, author, created_at, summary, sha256, document)
         VALUES (1, 'otto', '2026-01-01T00:00:00.000Z', 'old', 'x', '{}')`,
      )
      .run();
    old.close();

    const store = await Store.open({ file });
    try {
      const applied = await store.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .orderBy('name' as never)
        .execute();
      expect(applied.map((r) => (r as { name: string }).name)).toEqual([
        '001_init',
        '002_agents',
        '003_audit',
        '004_api_tokens',
        '005_snmp',
        '006_cluster',
        '007_alarm_numbers',
      ]);
      const revisions = await store.db.selectFrom('revisions').select('author').execute();
      expect(revisions).toEqual([{ author: 'otto' }]);
      expect(store.sqlite!.pragma('user_version', { simple: true })).toBe(7);
    } finally {
      await store.close();
    }
    // Opened again: still nothing to apply.
    await (await Store.open({ file })).close();
  });

  it('of a partly migrated file, applies only the migrations after its user_version', async () => {
    const file = join(tempDir(), 'ipfe-oam.sqlite');
    const old = new Database(file);
    old.exec(readFileSync(MIGRATIONS + '001_init.sql', 'utf8'));
    old.pragma('user_version = 1');
    old.close();
    const store = await Store.open({ file });
    try {
      expect(await store.db.selectFrom('audit').selectAll().execute()).toEqual([]);
      expect(store.sqlite!.pragma('user_version', { simple: true })).toBe(7);
    } finally {
      await store.close();
    }
  });
});

describe.runIf(testEngine() === 'sqlite')('the alarm log of an earlier release', () => {
  it('is renumbered: our own alarms leave the source product’s numbers, 5012 takes its name', async () => {
    const file = join(tempDir(), 'ipfe-oam.sqlite');
    const old = new Database(file);
    for (const name of readdirSync(MIGRATIONS)
      .filter((f) => f.endsWith('.sql') && f < '007')
      .sort())
      old.exec(readFileSync(MIGRATIONS + name, 'utf8'));
    old.pragma('user_version = 6');
    const insert = old.prepare(
      `INSERT INTO alarms (slot, code, name, severity, text, raised_at)
       VALUES ('A1', ?, ?, ?, 'then', '2026-01-01T00:00:00.000Z')`,
    );
    insert.run(5100, 'Configuration Rejected', 'minor');
    insert.run(5101, 'IPFE Unreachable', 'major');
    insert.run(5020, 'BGP Session Down', 'major');
    insert.run(5012, 'Mate Heartbeat Timeout', 'major');
    insert.run(5001, 'Backend Unavailable', 'major');
    old.close();

    const store = await Store.open({ file });
    try {
      const rows = await store.db
        .selectFrom('alarms')
        .select(['code', 'name', 'severity'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { code: 5150, name: 'Configuration Rejected', severity: 'minor' },
        { code: 5151, name: 'IPFE Unreachable', severity: 'major' },
        { code: 5152, name: 'BGP Session Down', severity: 'major' },
        { code: 5012, name: 'Signaling Interface Heartbeat Timeout', severity: 'critical' },
        { code: 5001, name: 'Backend Unavailable', severity: 'major' },
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('a store the OAM cannot open', () => {
  it('stops the OAM at start with one line naming the database, never the password', async () => {
    // Nothing listens on port 1 of loopback.
    const { code, lines } = await failedStart({
      IPFE_DATABASE_URL: 'postgres://ipfe:s3cret-pass@127.0.0.1:1/ipfe',
    });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ipfe-oam: failed to start: cannot open the store postgres:\/\/127\.0\.0\.1:1\/ipfe: /,
    );
    expect(lines[0]).not.toContain('s3cret-pass');
  });

  it('refuses a URL that is not PostgreSQL’s, naming the variable', async () => {
    const { code, lines } = await failedStart({ IPFE_DATABASE_URL: 'mysql://a:b@127.0.0.1/x' });
    expect(code).toBe(2);
    expect(lines).toEqual([
      'ipfe-oam: IPFE_DATABASE_URL: must be a PostgreSQL URL: postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    ]);
  });

  it.runIf(testEngine() === 'postgres')('stops the OAM given a wrong password', async () => {
    const url = new URL(inject('postgresAdminUrl'));
    url.password = 'not-the-password';
    const { code, lines } = await failedStart({ IPFE_DATABASE_URL: url.toString() });
    expect(code).toBe(1);
    expect(lines).toEqual([
      `ipfe-oam: failed to start: cannot open the store postgres://${url.host}/postgres: password authentication failed for user "postgres"`,
    ]);
  });
});

describe.runIf(testEngine() === 'postgres')('several writers of one PostgreSQL store', () => {
  it('number their revisions without a gap or a duplicate, and one of two same-ETag edits wins', async () => {
    const first = await startApp();
    const second = await startApp({ databaseUrl: (first.location as { url: string }).url });
    try {
      const a = await login(first.app);
      const b = await login(second.app);
      await seedPrerequisites(a);
      const base = (await a.get('/api/revisions')).json().total as number;
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 ? a : b).post('/api/xsi-networks', { name: `n${i}`, cidr: `10.${i}.0.0/16` }),
        ),
      );
      expect(answers.map((r) => `${r.statusCode} ${r.statusCode === 201 ? '' : r.body}`)).toEqual(
        Array(12).fill('201 '),
      );
      const numbers = answers
        .map((r) => Number(r.headers['x-ipfe-revision']))
        .sort((x, y) => x - y);
      expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => base + i + 1));

      const options = await a.get('/api/options');
      const etag = options.headers.etag as string;
      const edits = await Promise.all(
        [a, b].map((client, i) =>
          client.put(
            '/api/options',
            { ...(options.json() as object), imbalanceThresholdPct: 30 + i },
            etag,
          ),
        ),
      );
      expect(edits.map((r) => r.statusCode).sort()).toEqual([200, 412]);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
