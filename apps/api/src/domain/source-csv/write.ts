import { valueAt } from './shared.ts';
import { stringify } from 'csv-stringify/sync';
import type { Configuration } from '@ipfe/schema';
import { TABLES, type Column, type Table } from './tables.ts';

function columnsOf(table: Table, config: Configuration): Column[] {
  if (!table.numbered) return table.columns;
  const most = Math.max(1, ...config.targetSets.map((ts) => ts.servers.length));
  return [
    ...table.columns,
    ...Array.from({ length: most }, (_, i) => table.numbered!.columns(i + 1)).flat(),
  ];
}

/**
 * The configuration in the source product's bulk-export layout: per table a header row (the
 * table name, then its column names) and one row per entity, the table name in the first cell.
 * Every table is written, even empty, so that importing the file gives this configuration back.
 */
export function writeSourceCsv(config: Configuration): string {
  const rows: string[][] = [];
  for (const table of TABLES) {
    const columns = columnsOf(table, config);
    rows.push([table.name, ...columns.map((c) => c.name)]);
    const entities: unknown[] =
      table.collection === 'options' ? [config.options] : config[table.collection];
    for (const entity of entities) {
      rows.push([table.name, ...columns.map((c) => c.kind.format(valueAt(entity, c.field)))]);
    }
  }
  return stringify(rows, { record_delimiter: 'windows' });
}
