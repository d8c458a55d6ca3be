import { sql } from 'kysely';
import type { Schema } from '../store/schema.ts';
import type { Db, Store } from '../store/store.ts';

/**
 * The tables an existing store moves with, parents first. Left behind, on purpose: `sessions`
 * (everyone logs in again on the new store), and what belongs to a running cluster rather than to
 * the history (`oam_nodes`, `login_limits`, `cluster_secrets`).
 */
export const MOVED_TABLES = [
  'users',
  'revisions',
  'agent_sync',
  'alarms',
  'audit',
  'api_tokens',
  'snmp_trap_settings',
  'snmp_trap_destinations',
  'trap_outbox',
] as const satisfies readonly (keyof Schema)[];

type MovedTable = (typeof MOVED_TABLES)[number];
/** The tables whose ids PostgreSQL counts (identity columns): counted on from the copied ones. */
const IDENTITY_TABLES: MovedTable[] = ['alarms', 'audit', 'api_tokens', 'trap_outbox'];
/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH = 500;

export type MoveOutcome =
  | { kind: 'moved'; rows: Record<MovedTable, number> }
  | { kind: 'already'; revisions: number }
  | { kind: 'refused'; reason: string };

async function counts(db: Db): Promise<Record<MovedTable, number>> {
  const rows = {} as Record<MovedTable, number>;
  for (const table of MOVED_TABLES) {
    const { n } = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    rows[table] = Number(n);
  }
  return rows;
}

/** The latest revision's number and digest: the same on both stores once the history moved. */
async function latest(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('revisions')
    .select(['number', 'sha256'])
    .orderBy('number', 'desc')
    .executeTakeFirst();
  return row ? `${row.number}:${row.sha256}` : null;
}

/**
 * Copies the history of `from` (a SQLite store) into `to` (a PostgreSQL store, migrated), in one
 * transaction of `to`. A target that holds this history already: nothing done ("already"); one
 * that holds anything else: refused unless `replace`, which empties the moved tables first.
 */
export async function moveStore(from: Store, to: Store, replace = false): Promise<MoveOutcome> {
  const source = await counts(from.db);
  const sourceLatest = await latest(from.db);
  return to.transaction(async (trx) => {
    const target = await counts(trx);
    const held = MOVED_TABLES.filter((t) => target[t] > 0);
    if (held.length > 0 && !replace) {
      if (sourceLatest !== null && (await latest(trx)) === sourceLatest)
        return { kind: 'already', revisions: target.revisions };
      return {
        kind: 'refused',
        reason: `the target is not empty (${held.map((t) => `${target[t]} ${t}`).join(', ')}); give --replace to overwrite it`,
      };
    }
    for (const table of [...MOVED_TABLES].reverse()) await trx.deleteFrom(table).execute();
    for (const table of MOVED_TABLES) {
      for (let offset = 0; offset < source[table]; offset += BATCH) {
        const rows = await from.db
          .selectFrom(table)
          .selectAll()
          .orderBy(sql.lit(1))
          .limit(BATCH)
          .offset(offset)
          .execute();
        // The rows of `table` as read are its insertable rows; TypeScript cannot tell per table.
        if (rows.length > 0)
          await trx
            .insertInto(table)
            .values(rows as never)
            .execute();
      }
    }
    for (const table of IDENTITY_TABLES)
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false) from ${sql.table(table)}`.execute(
        trx,
      );
    return { kind: 'moved', rows: source };
  });
}
