import { isDeepStrictEqual } from 'node:util';
import { CsvError, parse } from 'csv-parse/sync';
import { normalizeTargetSet, type Configuration, type ServerOffer } from '@ipfe/schema';

/**
 * What both file formats share: how a file becomes records, how a problem is located and capped,
 * and what an entity's row says of where its fields came from.
 */

/** A problem of the file, located by line and column where it has one. */
export interface CsvProblem {
  /** "line 7, column Server1Weighting", "line 3", or the entity it concerns. */
  path: string;
  message: string;
  line: number | null;
  column: string | null;
}

/** A column (or a record) of the file that nothing in our configuration takes. */
export interface NotImported {
  table: string;
  column: string;
  line: number;
  message: string;
}

export type { ServerOffer };

export interface ImportRead {
  /** The configuration the file describes; null when anything in it has a problem. */
  config: Configuration | null;
  /** What it describes even when the rules between entities refuse it (to show the changes). */
  candidate: Configuration | null;
  problems: CsvProblem[];
  notImported: NotImported[];
  /** Servers the file's IP lists name that this OAM lacks and could create. */
  serversToCreate: ServerOffer[];
  /** What the operator should know of how the file was read (a layout we chose, a unit). */
  notes: string[];
}

export const emptyRead = (): ImportRead => ({
  config: null,
  candidate: null,
  problems: [],
  notImported: [],
  serversToCreate: [],
  notes: [],
});

/** Where a field of an entity came from: the line and column of the file. */
export interface Origin {
  at(fieldPath: string): { line: number; column: string | null };
}

export interface Row {
  line: number;
  cells: string[];
}

const where = (line: number | null, column: string | null) =>
  line === null ? 'the file' : column ? `line ${line}, column ${column}` : `line ${line}`;

export const problem = (
  line: number | null,
  column: string | null,
  message: string,
): CsvProblem => ({
  path: where(line, column),
  message,
  line,
  column,
});

/**
 * The records of the file with the line each starts on; a syntax error is the only problem.
 * `comments`: a line starting with '#' is a comment (the source's bulk files allow them).
 */
export function records(text: string, { comments = false } = {}): Row[] | CsvProblem {
  try {
    const parsed = parse(text, {
      bom: true,
      info: true,
      raw: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      ...(comments ? { comment: '#', comment_no_infix: true } : {}),
    }) as unknown as { record: string[]; info: { lines: number }; raw: string }[];
    return parsed.map(({ record, info, raw }) => ({
      // info.lines is the line the record ends on; a quoted cell may span lines.
      line: info.lines - (raw.replace(/(\r\n|\n|\r)$/, '').match(/\r\n|\n|\r/g)?.length ?? 0),
      cells: record,
    }));
  } catch (err) {
    if (err instanceof CsvError) {
      const line = typeof err.lines === 'number' ? err.lines : null;
      return problem(line, null, `The file is not valid CSV: ${err.message}`);
    }
    throw err;
  }
}

export const isBlank = (cell: string | undefined) => (cell ?? '').trim() === '';

/** A message that does not quote the cell it is about gets the cell's text ("…, not "70000""). */
export function quotingTheCell(message: string, cell: string): string {
  if (cell === '') return message;
  // Quoted unless the message names the value itself ("127.1.1.9 is …"), not as part of another
  // ("from 1000 to …" does not name 100).
  const escaped = cell.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const named = new RegExp(`(^|[^\\w.:])${escaped}($|[^\\w.:])`).test(message);
  return named ? message : `${message}, not "${cell}"`;
}

/** Whether the entity at `path` ("targetSets.3", "options") is as it runs, matched by its key. */
export function sameAsRunning(
  config: Configuration,
  running: Configuration,
  path: string,
): boolean {
  if (path === 'options') return isDeepStrictEqual(config.options, running.options);
  const [collection, index] = path.split('.') as [keyof Configuration, string];
  const entity = (config[collection] as unknown[])[Number(index)];
  if (collection === 'targetSets') {
    const ts = entity as Configuration['targetSets'][number];
    const runs = running.targetSets.find((t) => t.number === ts.number);
    // Stored with its factors normalized: compare what the file says as it would be stored.
    return (
      runs !== undefined && isDeepStrictEqual(normalizeTargetSet(ts), normalizeTargetSet(runs))
    );
  }
  const named = entity as { name: string };
  const list = running[collection] as { name: string }[];
  return isDeepStrictEqual(
    named,
    list.find((e) => e.name === named.name),
  );
}

/** The problems an operator can act on at once; the rest once those are fixed. */
export const PROBLEMS_SHOWN = 100;

export function capped<T extends { problems: CsvProblem[] }>(out: T): T {
  const more = out.problems.length - PROBLEMS_SHOWN;
  if (more <= 0) return out;
  out.problems = [
    ...out.problems.slice(0, PROBLEMS_SHOWN),
    problem(null, null, `${more} more problems not shown: fix these first`),
  ];
  return out;
}

/** The value at a dotted path ("options.ipfe.A1.address"), through own keys only; else undefined. */
export function valueAt(source: unknown, path: string): unknown {
  let node = source;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
