import { existsSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Store, describeLocation, isPostgresUrl, type StoreLocation } from '../store/store.ts';
import { ConfigRepository } from '../repositories/config-repository.ts';

const USAGE =
  'usage: npm run export -- [--revision N] [--out FILE]   (IPFE_DATABASE_URL, else IPFE_DATA_DIR, selects the store)';

/** Writes a revision's config document (default: the latest) to a file or standard output. */
async function main() {
  let values: { revision?: string; out?: string };
  try {
    values = parseArgs({
      options: { revision: { type: 'string' }, out: { type: 'string' } },
    }).values;
  } catch (err) {
    console.error(`ipfe-export: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const base = process.env.INIT_CWD ?? process.cwd();
  const location = storeLocation(base);
  const where = describeLocation(location);
  const store = await Store.open(location).catch((err: unknown) => {
    console.error(`ipfe-export: cannot open ${where}: ${(err as Error).message}`);
    process.exit(1);
  });
  try {
    const configs = new ConfigRepository(store);
    const revision =
      values.revision === undefined
        ? ((await configs.latestInfo())?.number ?? 0)
        : Number(values.revision);
    if (!Number.isSafeInteger(revision) || revision < 0) {
      console.error(
        `ipfe-export: --revision must be a whole number, not ${values.revision}\n${USAGE}`,
      );
      process.exit(2);
    }
    const document = await configs.document(revision);
    if (!document) {
      console.error(`ipfe-export: revision ${revision} does not exist in ${where}`);
      process.exit(1);
    }
    const text = `${JSON.stringify(document, null, 2)}\n`;
    if (values.out) {
      const out = isAbsolute(values.out) ? values.out : resolve(base, values.out);
      writeFileSync(out, text);
      console.error(
        `ipfe-export: revision ${revision} (sha256 ${document.sha256}) written to ${out}`,
      );
    } else {
      process.stdout.write(text);
    }
  } finally {
    await store.close();
  }
}

/** The OAM's store, as the OAM itself finds it: IPFE_DATABASE_URL, else the SQLite file. */
function storeLocation(base: string): StoreLocation {
  const url = process.env.IPFE_DATABASE_URL?.trim();
  if (url) {
    if (!isPostgresUrl(url)) {
      console.error('ipfe-export: IPFE_DATABASE_URL must be a postgres:// or postgresql:// URL');
      process.exit(2);
    }
    return { url };
  }
  const dataDir = process.env.IPFE_DATA_DIR || 'data';
  const file = join(isAbsolute(dataDir) ? dataDir : resolve(base, dataDir), 'ipfe-oam.sqlite');
  if (!existsSync(file)) {
    console.error(`ipfe-export: no OAM data at ${file} (set IPFE_DATA_DIR or IPFE_DATABASE_URL)`);
    process.exit(1);
  }
  return { file };
}

void main();
