import { existsSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { backupDatabase } from '../services/backup.ts';

const USAGE =
  'usage: npm run backup -- [--out FILE]   (IPFE_DATA_DIR selects the data folder; default FILE: <data folder>/backups/ipfe-oam-<UTC time>.sqlite)';

/** A copy of the OAM's SQLite file, made while the OAM runs (docs/deploy.md, "Backup and restore"). */
async function main() {
  let values: { out?: string };
  try {
    values = parseArgs({ options: { out: { type: 'string' } } }).values;
  } catch (err) {
    console.error(`ipfe-backup: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (process.env.IPFE_DATABASE_URL?.trim()) {
    console.error(
      'ipfe-backup: the store is PostgreSQL (IPFE_DATABASE_URL): back it up with pg_dump or the failover manager (docs/deploy.md, "Backup and restore"); this command copies the SQLite file',
    );
    process.exit(2);
  }
  const base = process.env.INIT_CWD ?? process.cwd();
  const dir = process.env.IPFE_DATA_DIR || 'data';
  const dataDir = isAbsolute(dir) ? dir : resolve(base, dir);
  const file = join(dataDir, 'ipfe-oam.sqlite');
  if (!existsSync(file)) {
    console.error(`ipfe-backup: no OAM data at ${file} (set IPFE_DATA_DIR)`);
    process.exit(1);
  }
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const out = values.out
    ? isAbsolute(values.out)
      ? values.out
      : resolve(base, values.out)
    : join(dataDir, 'backups', `ipfe-oam-${stamp}.sqlite`);
  if (existsSync(out)) {
    console.error(`ipfe-backup: ${out} already exists; choose another --out`);
    process.exit(1);
  }
  if (!values.out) mkdirSync(dirname(out), { recursive: true, mode: 0o700 });
  if (!existsSync(dirname(out))) {
    console.error(`ipfe-backup: the folder ${dirname(out)} does not exist`);
    process.exit(1);
  }
  const result = await backupDatabase(file, out);
  const latest = result.latest
    ? `latest ${result.latest.number}, sha256 ${result.latest.sha256}`
    : 'no revision yet';
  console.error(
    `ipfe-backup: ${result.revisions} revisions (${latest}) copied to ${out} (${result.bytes} bytes); integrity ok`,
  );
}

main().catch((err: unknown) => {
  console.error(`ipfe-backup: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
