import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { moveStore, MOVED_TABLES } from '../services/migrate-store.ts';
import { isPostgresUrl, Store } from '../store/store.ts';

const USAGE =
  'usage: npm run migrate-store -- --from FILE.sqlite --to postgres://USER:PASS@HOST:PORT/DB [--replace]';

const fail = (message: string, code = 1): never => {
  console.error(`ipfe-migrate-store: ${message}`);
  process.exit(code);
};

/** Moves an OAM's SQLite store into PostgreSQL (docs/deploy.md, "Moving from SQLite"). */
async function main() {
  let values: { from?: string; to?: string; replace?: boolean };
  try {
    values = parseArgs({
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        replace: { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
  if (!values.from || !values.to) return fail(`--from and --to are both needed\n${USAGE}`, 2);
  if (!isPostgresUrl(values.to)) return fail(`--to must be a postgres:// URL\n${USAGE}`, 2);
  const base = process.env.INIT_CWD ?? process.cwd();
  const file = isAbsolute(values.from) ? values.from : resolve(base, values.from);
  if (!existsSync(file)) return fail(`no SQLite store at ${file}`);

  let from: Store | null = null;
  let to: Store | null = null;
  try {
    from = await Store.open({ file });
    to = await Store.open({ url: values.to });
    const outcome = await moveStore(from, to, values.replace);
    if (outcome.kind === 'refused') return fail(`${to.description}: ${outcome.reason}`);
    if (outcome.kind === 'already') {
      console.log(
        `${to.description} holds this store's history already (${outcome.revisions} revisions): nothing to do`,
      );
      return;
    }
    const moved = MOVED_TABLES.map((t) => `${outcome.rows[t]} ${t}`).join(', ');
    console.log(`moved ${file} into ${to.description}: ${moved}`);
    console.log('sessions are not moved: everyone logs in again on the new store');
  } catch (err) {
    fail((err as Error).message);
  } finally {
    await from?.close();
    await to?.close();
  }
}

await main();
