import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { backupDatabase } from '../src/services/backup.ts';
import { login, startApp } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const run = promisify(execFile);
const backupCli = new URL('../src/cli/backup.ts', import.meta.url).pathname;
const tsx = new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url).pathname;
const { t, admin } = useTestApp({
  per: 'file',
  seed: true,
  // Larger than one default step of the backup API (100 pages): a copy in several steps would
  // be restarted by every write in between.
  setup: async () => {
    const writer = startWriter();
    while (statSync(t.databaseFile).size + statSync(`${t.databaseFile}-wal`).size < 600_000)
      await new Promise((r) => setTimeout(r, 20));
    await writer.stop();
  },
  timeout: 60_000,
});

/** Commits revision after revision (an options change each) until stopped. */
function startWriter() {
  let stop = false;
  let n = 0;
  const done = (async () => {
    while (!stop) {
      const response = await admin.edit('/api/options', {
        ipfe: { A1: { address: '127.250.0.11' }, A2: { address: '127.250.0.12' } },
        leastLoadThreshold: (n++ % 2) + 1,
      });
      if (response.statusCode !== 200) throw new Error(`write failed: ${response.body}`);
      await new Promise((r) => setImmediate(r));
    }
  })();
  return {
    async stop() {
      stop = true;
      await done;
    },
  };
}

/** What a backup must be: whole, readable as a plain file, and one consistent moment. */
function checkCopy(file: string) {
  const copy = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = copy.pragma('integrity_check', { simple: true });
    const journal = copy.pragma('journal_mode', { simple: true });
    const rows = copy
      .prepare<[], { number: number; sha256: string; document: string }>(
        'SELECT number, sha256, document FROM revisions ORDER BY number',
      )
      .all();
    // Each stored document says its own revision and digest: no row is torn or out of step.
    for (const [i, row] of rows.entries()) {
      const document = JSON.parse(row.document) as { revision: number; sha256: string };
      expect(row.number).toBe(i + 1);
      expect(document).toMatchObject({ revision: row.number, sha256: row.sha256 });
    }
    return { integrity, journal, revisions: rows.length, latest: rows.at(-1) };
  } finally {
    copy.close();
  }
}

describe('npm run backup', () => {
  it('copies the database while revisions are being committed, whole and consistent', async () => {
    const out = join(t.dir, 'while-writing.sqlite');
    const writer = startWriter();
    await new Promise((r) => setTimeout(r, 50));
    const before = await t.app.configRepository.count();
    const { stderr } = await run(process.execPath, [tsx, backupCli, '--out', out], {
      env: { ...process.env, IPFE_DATA_DIR: t.dir },
    });
    const after = await t.app.configRepository.count();
    await writer.stop();

    expect(after).toBeGreaterThan(before); // the OAM kept writing during the backup
    const copy = checkCopy(out);
    expect(copy.integrity).toBe('ok');
    expect(copy.journal).toBe('delete');
    expect(copy.revisions).toBeGreaterThanOrEqual(before);
    expect(copy.revisions).toBeLessThanOrEqual(after);
    // The copy's latest revision is the very one the OAM committed under that number.
    expect(copy.latest!.sha256).toBe(
      (await t.app.configRepository.document(copy.revisions))!.sha256,
    );
    expect(stderr).toContain(
      `ipfe-backup: ${copy.revisions} revisions (latest ${copy.revisions}, sha256 ${copy.latest!.sha256}) copied to ${out}`,
    );
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(existsSync(`${out}.partial`)).toBe(false);
  });

  it('finishes every time however often the OAM writes, each copy one moment of it', async () => {
    const writer = startWriter();
    const counts: { before: number; copy: number; after: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const out = join(t.dir, `in-process-${i}.sqlite`);
      const before = await t.app.configRepository.count();
      await backupDatabase(t.databaseFile, out);
      const after = await t.app.configRepository.count();
      const copy = checkCopy(out);
      expect(copy.integrity).toBe('ok');
      counts.push({ before, copy: copy.revisions, after });
      await new Promise((r) => setTimeout(r, 10));
    }
    await writer.stop();
    for (const c of counts) {
      expect(c.copy).toBeGreaterThanOrEqual(c.before);
      expect(c.copy).toBeLessThanOrEqual(c.after);
    }
    expect(counts.at(-1)!.copy).toBeGreaterThan(counts[0]!.copy);
  });

  it('restores: an OAM started on the copy has every revision and its users', async () => {
    const out = join(t.dir, 'to-restore.sqlite');
    const result = await backupDatabase(t.databaseFile, out);
    const restored = join(t.dir, 'restored');
    mkdirSync(restored);
    copyFileSync(out, join(restored, 'ipfe-oam.sqlite'));
    const again = await startApp({ dir: restored });
    try {
      expect(await again.app.configRepository.count()).toBe(result.revisions);
      expect((await again.app.configRepository.latestInfo())?.sha256).toBe(result.latest!.sha256);
      const response = await (await login(again.app)).get('/api/target-sets');
      expect(response.statusCode).toBe(200);
    } finally {
      await again.close();
    }
  });

  it('writes into <data>/backups by default and never overwrites a file', async () => {
    const env = { ...process.env, IPFE_DATA_DIR: t.dir };
    await run(process.execPath, [tsx, backupCli], { env });
    const made = readdirSync(join(t.dir, 'backups'));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^ipfe-oam-\d{8}T\d{6}Z\.sqlite$/);
    expect(checkCopy(join(t.dir, 'backups', made[0]!)).integrity).toBe('ok');

    const taken = join(t.dir, 'taken.sqlite');
    writeFileSync(taken, 'not a backup');
    const refused = await run(process.execPath, [tsx, backupCli, '--out', taken], { env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('already exists') });
  });

  it('refuses a missing data folder and an unknown flag with one clear line', async () => {
    const empty = join(t.dir, 'empty');
    mkdirSync(empty);
    const missing = await run(process.execPath, [tsx, backupCli], {
      env: { ...process.env, IPFE_DATA_DIR: empty },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(missing).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`no OAM data at ${join(empty, 'ipfe-oam.sqlite')}`),
    });
    const bad = await run(process.execPath, [tsx, backupCli, '--to', 'x'], {
      env: { ...process.env, IPFE_DATA_DIR: t.dir },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown option '--to'"),
    });
  });

  it('points to pg_dump, copying nothing, when the store is PostgreSQL', async () => {
    const dataDir = join(t.dir, 'beside-postgres');
    mkdirSync(dataDir);
    const refused = await run(process.execPath, [tsx, backupCli], {
      env: {
        ...process.env,
        IPFE_DATA_DIR: dataDir,
        IPFE_DATABASE_URL: 'postgres://ipfe@127.0.0.1:1/ipfe',
      },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('pg_dump') });
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
