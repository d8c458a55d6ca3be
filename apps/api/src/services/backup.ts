import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';

export interface BackupResult {
  file: string;
  bytes: number;
  revisions: number;
  latest: { number: number; sha256: string } | null;
}

/**
 * Pages per backup step: all of them. The online backup API restarts a copy whenever another
 * connection writes between two steps; copying everything in one step (one read transaction,
 * which in WAL mode never blocks the OAM's writers) makes a backup finish however busy the OAM is.
 */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies a live OAM database (SQLite's online backup API, better-sqlite3 `db.backup()`) to
 * `outFile`: a consistent snapshot of one moment, made while the OAM keeps running and writing.
 * The copy is checked (`PRAGMA integrity_check`), turned into one self-contained file (rollback
 * journal instead of WAL) and only then renamed to `outFile`, so a file there is a whole backup.
 * The file is mode 0600: it holds password hashes and session data.
 */
export async function backupDatabase(sourceFile: string, outFile: string): Promise<BackupResult> {
  if (!existsSync(sourceFile)) throw new Error(`no OAM database at ${sourceFile}`);
  const partial = `${outFile}.partial`;
  rmSync(partial, { force: true });
  try {
    // It holds password hashes and sessions: readable by its owner only, from the first byte.
    writeFileSync(partial, '', { mode: 0o600, flag: 'wx' });
    const source = new Database(sourceFile, { fileMustExist: true });
    try {
      source.pragma('busy_timeout = 5000');
      await source.backup(partial, { progress: () => ALL_PAGES });
    } finally {
      source.close();
    }
    const copy = new Database(partial, { fileMustExist: true });
    let revisions: number;
    let latest: BackupResult['latest'];
    try {
      copy.pragma('journal_mode = DELETE');
      const problems = (copy.pragma('integrity_check') as { integrity_check: string }[])
        .map((row) => row.integrity_check)
        .filter((line) => line !== 'ok');
      if (problems.length > 0)
        throw new Error(`the copy fails its integrity check: ${problems.join('; ')}`);
      revisions = copy.prepare<[], { n: number }>('SELECT count(*) AS n FROM revisions').get()!.n;
      latest =
        copy
          .prepare<[], { number: number; sha256: string }>(
            'SELECT number, sha256 FROM revisions ORDER BY number DESC LIMIT 1',
          )
          .get() ?? null;
    } finally {
      copy.close();
    }
    renameSync(partial, outFile);
    return { file: outFile, bytes: statSync(outFile).size, revisions, latest };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}
