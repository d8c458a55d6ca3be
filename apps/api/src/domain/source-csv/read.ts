import { isDeepStrictEqual } from 'node:util';
import { CsvError, parse } from 'csv-parse/sync';
import {
  portRangesOf,
  checkConfiguration,
  fieldErrorsOf,
  normalizeTargetSet,
  type Configuration,
  type PortRange,
} from '@ipfe/schema';
import { newServingProblems, type Statuses } from '../serving.ts';
import { describeLocation } from '../validate-change.ts';
import { TABLES, type Column, type Table } from './tables.ts';

/** A problem of the file, located by line and column where it has one. */
export interface CsvProblem {
  /** "line 7, column Server1Weighting", "line 3", or the entity it concerns. */
  path: string;
  message: string;
  line: number | null;
  column: string | null;
}

/** A column of the file that nothing in our configuration takes. */
export interface NotImported {
  table: string;
  column: string;
  line: number;
  message: string;
}

export interface SourceCsvRead {
  /** The configuration the file describes; null when anything in it has a problem. */
  config: Configuration | null;
  /** What it describes even when the rules between entities refuse it (to show the changes). */
  candidate: Configuration | null;
  problems: CsvProblem[];
  notImported: NotImported[];
}

interface Row {
  line: number;
  cells: string[];
}

/** Where one entity of the candidate configuration came from. */
interface Origin {
  table: Table;
  line: number;
  columnOf: (fieldPath: string) => string | null;
}

/** A header's columns: ours by position, and how many numbered groups (servers) it has. */
interface Header {
  line: number;
  columns: { at: number; column: Column }[];
  /** How many columns it names, ours or not. */
  width: number;
  groups: number;
  broken: boolean;
  /** Data rows seen, taken or refused. */
  rows: number;
}

const where = (line: number | null, column: string | null) =>
  line === null ? 'the file' : column ? `line ${line}, column ${column}` : `line ${line}`;

const problem = (line: number | null, column: string | null, message: string): CsvProblem => ({
  path: where(line, column),
  message,
  line,
  column,
});

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const keys = path.split('.');
  let node: Record<string, unknown> = target;
  keys.slice(0, -1).forEach((key, i) => {
    node[key] ??= /^\d+$/.test(keys[i + 1]!) ? [] : {};
    node = node[key] as Record<string, unknown>;
  });
  node[keys.at(-1)!] = value;
}

/** The records of the file with the line each starts on; a syntax error is the only problem. */
function records(text: string): Row[] | CsvProblem {
  try {
    const parsed = parse(text, {
      bom: true,
      info: true,
      raw: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
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

/** More unknown columns than this in one header is no source export with a few extra columns. */
const UNKNOWN_COLUMNS_MAX = 100;

/** Reads a header row: which column each cell is, what is missing, what is not imported. */
function readHeader(table: Table, row: Row, out: SourceCsvRead): Header {
  const header: Header = {
    line: row.line,
    columns: [],
    width: row.cells.length - 1,
    groups: 0,
    broken: false,
    rows: 0,
  };
  const seen = new Map<string, number>();
  const unknown: NotImported[] = [];
  const groupColumns = new Map<number, Set<string>>();
  row.cells.slice(1).forEach((cell, i) => {
    const name = cell.trim();
    const at = i + 1;
    const lower = name.toLowerCase();
    if (seen.has(lower)) {
      out.problems.push(problem(row.line, name, `Column ${name} is named twice in this header`));
      header.broken = true;
      return;
    }
    seen.set(lower, at);
    const column = table.columns.find((c) => c.name.toLowerCase() === lower);
    if (column) {
      header.columns.push({ at, column });
      return;
    }
    const numbered = table.numbered && new RegExp(table.numbered.pattern, 'i').exec(name);
    if (numbered && table.numbered) {
      const n = Number(numbered[1]);
      if (n < 1 || n > table.numbered.max) {
        out.problems.push(
          problem(row.line, name, `A ${table.noun} holds servers 1 to ${table.numbered.max}`),
        );
        header.broken = true;
        return;
      }
      const own = table.numbered.columns(n).find((c) => c.name.toLowerCase() === lower)!;
      header.columns.push({ at, column: own });
      groupColumns.set(n, (groupColumns.get(n) ?? new Set()).add(own.name));
      return;
    }
    if (name === '') {
      out.problems.push(problem(row.line, `${at + 1}`, 'A column of the header has no name'));
      header.broken = true;
      return;
    }
    unknown.push({
      table: table.name,
      column: name,
      line: row.line,
      message: `not imported: column ${name} of ${table.name}`,
    });
  });
  if (unknown.length > UNKNOWN_COLUMNS_MAX) {
    out.problems.push(
      problem(
        row.line,
        null,
        `${unknown.length} columns of this ${table.name} header are unknown to this import (at most ${UNKNOWN_COLUMNS_MAX} are listed as not imported): is this the source product's export?`,
      ),
    );
    header.broken = true;
  } else {
    out.notImported.push(...unknown);
  }
  // Our own later columns (decision 018) may be absent: a file from before, or the source's own.
  const missing = table.columns.filter((c) => !c.optional && !seen.has(c.name.toLowerCase()));
  if (table.numbered) {
    header.groups = groupColumns.size === 0 ? 0 : Math.max(...groupColumns.keys());
    for (let n = 1; n <= Math.max(1, header.groups); n++) {
      const have = groupColumns.get(n) ?? new Set();
      missing.push(...table.numbered.columns(n).filter((c) => !have.has(c.name)));
    }
  }
  for (const column of missing) {
    out.problems.push(
      problem(row.line, column.name, `The ${table.name} header has no column ${column.name}`),
    );
    header.broken = true;
  }
  return header;
}

const isBlank = (cell: string | undefined) => (cell ?? '').trim() === '';

/** One data row as the entity's input, its cells read by their columns' kinds. */
function readRow(
  table: Table,
  header: Header,
  row: Row,
  out: SourceCsvRead,
): { input: Record<string, unknown>; refused: Set<string> } | null {
  const { width } = header;
  if (row.cells.length - 1 > width && row.cells.slice(width + 1).some((c) => !isBlank(c))) {
    out.problems.push(
      problem(
        row.line,
        null,
        `${row.cells.length - 1} cells after the table name, but the ${table.name} header on line ${header.line} names ${width} columns`,
      ),
    );
    return null;
  }
  const input: Record<string, unknown> = {};
  // Columns whose cell was refused here: the schema then sees no value there, and says no more.
  const refused = new Set<string>();
  // Numbered groups (servers) are read up to the last one with a cell set, without gaps.
  const groupOf = (name: string) => Number(table.numbered?.pattern.exec(name)?.[1] ?? 0);
  let used = 0;
  for (const { at, column } of header.columns) {
    if (groupOf(column.name) > 0 && !isBlank(row.cells[at])) {
      used = Math.max(used, groupOf(column.name));
    }
  }
  for (let n = 1; n < used; n++) {
    const cells = header.columns.filter((c) => groupOf(c.column.name) === n);
    if (cells.every((c) => isBlank(row.cells[c.at]))) {
      const first = table.numbered!.columns(n)[0]!.name;
      out.problems.push(
        problem(
          row.line,
          first,
          `Server ${n} is empty but server ${used} is set: list the servers without gaps`,
        ),
      );
      refused.add(first);
    }
  }
  for (const { at, column } of header.columns) {
    const group = groupOf(column.name);
    if (group > used) continue;
    const read = column.kind.read(row.cells[at] ?? '', column.label);
    if ('problem' in read) {
      out.problems.push(problem(row.line, column.name, read.problem));
      refused.add(column.name);
    } else if (read.value !== undefined) {
      setPath(input, column.field, read.value);
    }
  }
  table.finish?.(input);
  return { input, refused };
}

/** The column a schema path lies in: the column of that field, or the first one inside it. */
function columnFinder(header: Header) {
  const columns = header.columns.map((c) => c.column);
  return (path: string): string | null => {
    let best: Column | null = null;
    for (const c of columns) {
      if (
        (path === c.field || path.startsWith(`${c.field}.`)) &&
        (!best || c.field.length > best.field.length)
      ) {
        best = c;
      }
    }
    best ??= columns.find((c) => path !== '' && c.field.startsWith(`${path}.`)) ?? null;
    return best?.name ?? null;
  };
}

/**
 * Reads the source product's bulk-export CSV into the configuration it describes. A table in the
 * file replaces that part of `running` (a header with no rows empties it); a table absent from
 * the file leaves that part as it runs. Every problem is named by line and column.
 */
export function readSourceCsv(
  text: string,
  running: Configuration,
  statuses: Statuses = new Map(),
): SourceCsvRead {
  const out: SourceCsvRead = { config: null, candidate: null, problems: [], notImported: [] };
  const rows = records(text);
  if (!Array.isArray(rows)) {
    out.problems.push(rows);
    return out;
  }
  if (rows.length === 0) {
    out.problems.push(problem(null, null, 'The file has no records'));
    return out;
  }
  const headers = new Map<Table, Header>();
  const entities = new Map<Table, { value: Record<string, unknown>; origin: Origin }[]>();
  const keys = new Map<string, number>();
  // Tables with a row refused: what the rules between entities say of what refers to them waits.
  const refusedTables = new Set<Table>();
  // A table cut off at its most rows is not what the file says either.
  let cutOff = false;
  for (const row of rows) {
    const name = row.cells[0]!.trim();
    const table = TABLES.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (!table) {
      out.problems.push(
        problem(
          row.line,
          null,
          `${name === '' ? 'A row without a table name' : `"${name}" is not a table this import knows`}: the first cell names the record's table (${TABLES.map((t) => t.name).join(', ')})`,
        ),
      );
      continue;
    }
    const header = headers.get(table);
    if (!header) {
      headers.set(table, readHeader(table, row, out));
      entities.set(table, []);
      continue;
    }
    header.rows++;
    if (header.broken) continue;
    const list = entities.get(table)!;
    if (table.single && header.rows > 1) {
      out.problems.push(
        problem(row.line, null, `${table.name} has one row; line ${header.line + 1} is it`),
      );
      continue;
    }
    // The rules between entities take time that grows faster than the rows: a file is cut off
    // at what the configuration can hold, before any of that work.
    if (header.rows > table.maxRows) {
      cutOff = true;
      if (header.rows === table.maxRows + 1) {
        out.problems.push(
          problem(
            row.line,
            null,
            `${table.name} holds at most ${table.maxRows} rows: this is one more (the rows after it are not read)`,
          ),
        );
      }
      continue;
    }
    const read = readRow(table, header, row, out);
    if (!read) {
      refusedTables.add(table);
      continue;
    }
    if (table.key) {
      const keyColumn = header.columns.find((c) => c.column.name === table.key)!;
      // A row may end before its key cell (trailing cells left out): the schema says it is needed.
      const cell = (row.cells[keyColumn.at] ?? '').trim();
      const key = cell.toLowerCase();
      const earlier = keys.get(`${table.name}\n${key}`);
      if (key !== '' && earlier !== undefined) {
        out.problems.push(
          problem(row.line, table.key, `${table.noun} ${cell} is on line ${earlier} already`),
        );
        refusedTables.add(table);
        continue;
      }
      keys.set(`${table.name}\n${key}`, row.line);
    }
    const columnOf = columnFinder(header);
    const parsed = table.schema.safeParse(read.input);
    if (!parsed.success || read.refused.size > 0) {
      refusedTables.add(table);
      for (const issue of parsed.success ? [] : fieldErrorsOf(parsed.error)) {
        const column = columnOf(issue.path);
        if (column && read.refused.has(column)) continue;
        const at = header.columns.find((c) => c.column.name === column);
        const cell = at ? (row.cells[at.at] ?? '').trim() : '';
        out.problems.push(problem(row.line, column, quotingTheCell(issue.message, cell)));
      }
      continue;
    }
    list.push({
      value: parsed.data as Record<string, unknown>,
      origin: { table, line: row.line, columnOf },
    });
  }
  for (const [table, header] of headers) {
    if (table.single && header.rows === 0) {
      out.problems.push(problem(header.line, null, `${table.name} has a header but no row`));
    }
  }
  // A header that cannot be read leaves its table unknown: the rules between entities wait. Rows
  // refused one by one do not: every problem of the file is reported in one preview.
  if (
    cutOff ||
    [...headers.values()].some((h) => h.broken) ||
    out.problems.some((p) => p.line === null)
  ) {
    return capped(out);
  }
  const rowsRefused = out.problems.length > 0;

  const candidate = structuredClone(running) as Record<string, unknown>;
  const origins = new Map<string, Origin>();
  for (const [table, list] of entities) {
    if (table.single) {
      // Its one row refused: the rules between entities see the options as they run.
      if (list[0]) {
        candidate[table.collection] = list[0].value;
        origins.set(table.collection, list[0].origin);
      }
      continue;
    }
    candidate[table.collection] = list.map((e) => e.value);
    list.forEach((e, i) => origins.set(`${table.collection}.${i}`, e.origin));
  }
  const config = candidate as unknown as Configuration;
  const found = out.problems.length;
  allocateMissingRanges(config, running, origins, out);
  if (out.problems.length > found) return capped(out);

  const entityOf = (path: string) => {
    const segments = path.split('.');
    return segments[0] === 'options' ? 'options' : segments.slice(0, 2).join('.');
  };
  const changed = (entity: string) =>
    origins.has(entity) && !sameAsRunning(config, running, entity);
  const rules = [...checkConfiguration(config), ...newServingProblems(running, config, statuses)];
  for (const issue of rules) {
    if (issue.severity !== 'error') continue;
    // What refers to a refused row is told once that row is fixed.
    if (issue.cause && [...refusedTables].some((t) => issue.cause!.startsWith(t.collection))) {
      continue;
    }
    const entity = entityOf(issue.path);
    // A rule between two rows is reported on the row that broke it, not also on the other.
    if (issue.pairedWith && !changed(entity) && changed(entityOf(issue.pairedWith))) continue;
    const origin = origins.get(entity);
    const field = (issue.valuePath ?? issue.path).slice(entity.length + 1);
    if (origin) {
      out.problems.push(problem(origin.line, origin.columnOf(field), issue.message));
    } else {
      const { label } = describeLocation(config, issue.path);
      out.problems.push({
        path: `${label} (not in the file: as it runs)`,
        message: issue.message,
        line: null,
        column: null,
      });
    }
  }
  // Without its refused rows the file's configuration is not what the file says: no changes shown.
  if (!rowsRefused) out.candidate = config;
  if (out.problems.length === 0) out.config = config;
  return capped(out);
}

/** A message that does not quote the cell it is about gets the cell's text ("…, not "70000""). */
function quotingTheCell(message: string, cell: string): string {
  return cell === '' || message.includes(cell) ? message : `${message}, not "${cell}"`;
}

/** Whether the entity at `path` ("targetSets.3", "options") is as it runs, matched by its key. */
function sameAsRunning(config: Configuration, running: Configuration, path: string): boolean {
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

function capped(out: SourceCsvRead): SourceCsvRead {
  const more = out.problems.length - PROBLEMS_SHOWN;
  if (more <= 0) return out;
  out.problems = [
    ...out.problems.slice(0, PROBLEMS_SHOWN),
    problem(null, null, `${more} more problems not shown: fix these first`),
  ];
  return out;
}

/**
 * Gives an application server without an Initiator Port Range in the file one by the rule every
 * whole configuration follows (`portRangesOf`): the one it runs with, else the lowest free slice.
 */
function allocateMissingRanges(
  config: Configuration,
  running: Configuration,
  origins: Map<string, Origin>,
  out: SourceCsvRead,
) {
  const servers = config.appServers as (Configuration['appServers'][number] & {
    initiatorPortRange?: PortRange;
  })[];
  portRangesOf(servers, running.appServers).forEach((range, i) => {
    if (range) {
      servers[i]!.initiatorPortRange = range;
      return;
    }
    const origin = origins.get(`appServers.${i}`);
    out.problems.push(
      problem(
        origin?.line ?? null,
        'Name',
        'No Initiator Port Range is left for this server (at most 64 application servers)',
      ),
    );
  });
}
