import { fieldErrorsOf, type Configuration } from '@ipfe/schema';
import type { Statuses } from '../serving.ts';
import { finishRead } from './finish.ts';
import {
  capped,
  emptyRead,
  isBlank,
  problem,
  quotingTheCell,
  records,
  type ImportRead,
  type NotImported,
  type Origin,
  type Row,
} from './shared.ts';
import { TABLES, type Column, type Table } from './tables.ts';

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

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const keys = path.split('.');
  let node: Record<string, unknown> = target;
  keys.slice(0, -1).forEach((key, i) => {
    node[key] ??= /^\d+$/.test(keys[i + 1]!) ? [] : {};
    node = node[key] as Record<string, unknown>;
  });
  node[keys.at(-1)!] = value;
}

/** More unknown columns than this in one header is no source export with a few extra columns. */
const UNKNOWN_COLUMNS_MAX = 100;

/** Reads a header row: which column each cell is, what is missing, what is not imported. */
function readHeader(table: Table, row: Row, out: ImportRead): Header {
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

/** One data row as the entity's input, its cells read by their columns' kinds. */
function readRow(
  table: Table,
  header: Header,
  row: Row,
  out: ImportRead,
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
 * Reads our named-column CSV (decision 015) into the configuration it describes. A table in the
 * file replaces that part of `running` (a header with no rows empties it); a table absent from
 * the file leaves that part as it runs. Every problem is named by line and column.
 */
export function readSourceCsv(
  text: string,
  running: Configuration,
  statuses: Statuses = new Map(),
  { createServers = false }: { createServers?: boolean } = {},
): ImportRead {
  const out = emptyRead();
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
      origin: { at: (field) => ({ line: row.line, column: columnOf(field) }) },
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
  return finishRead(
    out,
    {
      candidate: candidate as unknown as Configuration,
      origins,
      refused: new Set([...refusedTables].map((t) => t.collection)),
    },
    running,
    statuses,
    { createServers },
  );
}
