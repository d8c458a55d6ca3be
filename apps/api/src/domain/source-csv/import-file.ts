import type { Configuration, ImportFileFormat } from '@ipfe/schema';
import type { Statuses } from '../serving.ts';
import { readBulkFile } from './bulk-read.ts';
import { writeBulkFile } from './bulk-write.ts';
import { readSourceCsv } from './read.ts';
import type { ImportRead } from './shared.ts';
import { TABLES } from './tables.ts';
import { writeSourceCsv } from './write.ts';

const NAMED_TABLE = new RegExp(
  `^\\s*"?(?:${TABLES.map((t) => t.name).join('|')})"?\\s*(?:,|$)`,
  'im',
);

/**
 * Which layout a file is in: a record that starts with one of our table names is our named-column
 * CSV (its header rows do); anything else is read as the source's bulk file, whose records start
 * with their application type.
 */
export function detectFormat(text: string): ImportFileFormat {
  return NAMED_TABLE.test(text) ? 'named' : 'source';
}

/** Reads a file in the layout asked for, or in the one it shows. */
export function readImportFile(
  text: string,
  running: Configuration,
  statuses: Statuses,
  { format, createServers }: { format?: ImportFileFormat | undefined; createServers: boolean },
): ImportRead & { format: ImportFileFormat } {
  const chosen = format ?? detectFormat(text);
  const read = chosen === 'source' ? readBulkFile : readSourceCsv;
  return { ...read(text, running, statuses, { createServers }), format: chosen };
}

export function writeImportFile(config: Configuration, format: ImportFileFormat): string {
  return format === 'source' ? writeBulkFile(config) : writeSourceCsv(config);
}
