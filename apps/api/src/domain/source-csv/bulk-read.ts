import {
  fieldErrorsOf,
  optionsSchema,
  TARGET_SET_SERVERS,
  targetSetSchema,
  type Configuration,
  type IpfeSlot,
} from '@ipfe/schema';
import type { Statuses } from '../serving.ts';
import {
  APPLICATION_TYPE,
  columnLabel,
  freeText,
  int,
  LIST_COLUMNS,
  LIST_KEYWORD,
  LIST_KEYWORDS,
  LIST_LAYOUT_NOTE,
  LIST_RECORD_COLUMNS,
  listColumnLabel,
  OPTION_COLUMNS,
  OPTIONS_KEYWORD,
  OPTIONS_KEYWORDS,
  OPTIONS_RECORD_COLUMNS,
  text,
  TSA_COLUMNS,
  TSA_COUNT,
  TSA_FIELDS,
  tsaColumnAt,
  tsaColumnLabel,
  type ListColumn,
  type TsaField,
} from './bulk-layout.ts';
import { finishRead } from './finish.ts';
import {
  capped,
  emptyRead,
  isBlank,
  problem,
  quotingTheCell,
  records,
  type ImportRead,
  type Origin,
  type Row,
} from './shared.ts';

/** The most ListTsa records a file can need: 32 Target Sets of 32 servers. */
const LIST_RECORDS_MAX = TSA_COUNT * TARGET_SET_SERVERS.max;

/** One server of an IP list, as its ListTsa record gives it. */
interface ListRecord {
  line: number;
  number: number;
  server: Record<string, unknown>;
  /** Columns whose cell was refused: the schema then says no more of them. */
  refused: Set<ListColumn>;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const keys = path.split('.');
  let node: Record<string, unknown> = target;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
}

/** The Options record column an option field lies in (its IPFE slot for `ipfe.A1`). */
function optionColumnOf(field: string): string | null {
  const column = OPTION_COLUMNS.find(
    (c) => c.field !== null && (field === c.field || c.field.startsWith(`${field}.`)),
  );
  return column ? columnLabel(column.at, column.name) : null;
}

/** The Target Set column a field of it lies in (the primary address for what it derives). */
function tsaFieldOf(field: string): TsaField | null {
  const exact = TSA_FIELDS.find((f) => TSA_COLUMNS[f].field === field);
  if (exact) return exact;
  if (field === 'family' || field === 'primary' || field === 'number') return 'IPAddress';
  if (field === 'secondary') return 'IPSecondaryAddress';
  if (field === 'leastLoad') return 'LoadFactorMPS';
  // Kept as they run (the source serves active/standby only): said at the preferred IPFE.
  if (field === 'serving' || field.startsWith('activeActiveIpfes')) return 'PreferredIpfe';
  return null;
}

const LIST_FIELD: Readonly<Record<string, ListColumn>> = {
  address: 'IpAddress',
  weight: 'Weight',
  secondaryAddress: 'SecondaryIpAddress',
  description: 'Description',
};

/**
 * Where a field of Target Set `n` came from: its columns of the Options record, or the ListTsa
 * record of a server of its IP list.
 */
function targetSetOrigin(n: number, optionsLine: number, list: ListRecord[]): Origin {
  return {
    at(field) {
      const row = /^servers(?:\.(\d+)(?:\.(\w+))?)?/.exec(field);
      if (row) {
        const record = list[Number(row[1] ?? 0)];
        if (!record) return { line: optionsLine, column: tsaColumnLabel(n, 'IPAddress') };
        return {
          line: record.line,
          column: listColumnLabel(LIST_FIELD[row[2] ?? ''] ?? 'IpAddress'),
        };
      }
      const tsa = tsaFieldOf(field);
      return { line: optionsLine, column: tsa ? tsaColumnLabel(n, tsa) : null };
    },
  };
}

/**
 * Reads the source product's bulk file (IpfeOption and IpfeListTsa records, positional) into the
 * configuration it describes: its options, and its Target Sets in place of the running ones. What
 * the file has no column for is kept as it runs: our own options, a Target Set's Initiator
 * Connection Support and Serving, the XSI networks, application servers and peer node groups.
 * Records of other application types (a whole-DSR export) are listed as not imported.
 */
export function readBulkFile(
  fileText: string,
  running: Configuration,
  statuses: Statuses = new Map(),
  { createServers = false }: { createServers?: boolean } = {},
): ImportRead {
  const out = emptyRead();
  out.notes.push(LIST_LAYOUT_NOTE);
  const rows = records(fileText, { comments: true });
  if (!Array.isArray(rows)) {
    out.problems.push(rows);
    return out;
  }
  if (rows.length === 0) {
    out.problems.push(problem(null, null, 'The file has no records'));
    return out;
  }
  let options: Row | null = null;
  const lists: Row[] = [];
  const others = new Map<string, number[]>();
  let cutOff = false;
  for (const row of rows) {
    const type = row.cells[0]!.trim();
    if (type.toLowerCase() !== APPLICATION_TYPE.toLowerCase()) {
      if (type === '') {
        out.problems.push(
          problem(
            row.line,
            columnLabel(0, 'Application Type'),
            `A record without an application type: the first column names it (${APPLICATION_TYPE} for this import)`,
          ),
        );
      } else others.set(type, [...(others.get(type) ?? []), row.line]);
      continue;
    }
    const keyword = (row.cells[1] ?? '').trim();
    if (OPTIONS_KEYWORDS.includes(keyword.toLowerCase())) {
      if (options) {
        out.problems.push(
          problem(
            row.line,
            columnLabel(1, 'Keyword'),
            `The file has one ${OPTIONS_KEYWORD} record, on line ${options.line}: this is a second one`,
          ),
        );
      } else options = row;
    } else if (LIST_KEYWORDS.includes(keyword.toLowerCase())) {
      if (lists.length === LIST_RECORDS_MAX) {
        cutOff = true;
        out.problems.push(
          problem(
            row.line,
            null,
            `At most ${LIST_RECORDS_MAX} ${LIST_KEYWORD} records (${TSA_COUNT} Target Sets of ${TARGET_SET_SERVERS.max} servers): this is one more (the records after it are not read)`,
          ),
        );
        break;
      }
      lists.push(row);
    } else {
      out.problems.push(
        problem(
          row.line,
          columnLabel(1, 'Keyword'),
          `"${keyword}" is not an ${APPLICATION_TYPE} record this import knows: its records are ${OPTIONS_KEYWORD} (IpfeOption) and ${LIST_KEYWORD} (IpfeListTsa)`,
        ),
      );
    }
  }
  for (const [type, lines] of others) {
    out.notImported.push({
      table: type,
      column: columnLabel(0, 'Application Type'),
      line: lines[0]!,
      message: `not imported: ${lines.length} ${lines.length === 1 ? 'record' : 'records'} of application type ${type} (from line ${lines[0]}): this import reads ${APPLICATION_TYPE} records only`,
    });
  }
  if (!options) {
    if (others.size > 0 && lists.length === 0 && out.problems.length === 0) {
      out.problems.push(
        problem(
          null,
          null,
          `The file has no ${APPLICATION_TYPE} records: export the ${APPLICATION_TYPE} configuration (IpfeOption and IpfeListTsa)`,
        ),
      );
    } else {
      out.problems.push(
        problem(
          null,
          null,
          `The file has no ${APPLICATION_TYPE} ${OPTIONS_KEYWORD} record (IpfeOption): an import needs it and the IpfeListTsa records, as the source's own does`,
        ),
      );
    }
  }

  const list = readLists(lists, out);
  const read = options ? readOptions(options, running, out) : null;
  if (!read || cutOff || read.broken) {
    for (const [n, records] of list) {
      if (read && !read.broken && !read.numbers.has(n)) unlisted(n, records, options!, out);
    }
    return capped(out);
  }
  const optionsLine = options!.line;
  const refused = new Set<string>();
  if (!read.options) refused.add('options');
  const candidate = structuredClone(running);
  if (read.options) candidate.options = read.options;
  const origins = new Map<string, Origin>();
  origins.set('options', { at: (field) => ({ line: optionsLine, column: optionColumnOf(field) }) });
  const targetSets: Configuration['targetSets'] = [];
  for (const [n, records] of list) {
    if (!read.numbers.has(n)) unlisted(n, records, options!, out);
  }
  for (const [n, input] of read.targetSets) {
    const servers = list.get(n) ?? [];
    if (servers.length === 0) {
      out.problems.push(
        problem(
          optionsLine,
          tsaColumnLabel(n, 'IPAddress'),
          `Target Set ${n} has no IP list: no ${LIST_KEYWORD} record names it (the source's import needs both records)`,
        ),
      );
      refused.add('targetSets');
      continue;
    }
    const origin = targetSetOrigin(n, optionsLine, servers);
    const runs = running.targetSets.find((ts) => ts.number === n);
    // What the source has no column for is kept as it runs.
    const kept = runs
      ? {
          initiatorSupport: runs.initiatorSupport,
          serving: runs.serving,
          ...(runs.activeActiveIpfes ? { activeActiveIpfes: [...runs.activeActiveIpfes] } : {}),
        }
      : {};
    const parsed = targetSetSchema.safeParse({
      ...input.value,
      ...kept,
      servers: servers.map((s) => s.server),
    });
    const refusedCells = servers.some((s) => s.refused.size > 0) || input.refused.size > 0;
    if (!parsed.success || refusedCells) {
      refused.add('targetSets');
      for (const issue of parsed.success ? [] : fieldErrorsOf(parsed.error)) {
        const at = origin.at(issue.path);
        if (at.column && (input.refused.has(at.column) || cellRefused(servers, at))) continue;
        const cell = cellAt(at, optionsLine, options!, lists);
        out.problems.push(problem(at.line, at.column, quotingTheCell(issue.message, cell)));
      }
      continue;
    }
    origins.set(`targetSets.${targetSets.length}`, origin);
    targetSets.push(parsed.data);
  }
  candidate.targetSets = targetSets;
  if (read.leastLoadStart) out.notes.push(read.leastLoadStart);
  return finishRead(out, { candidate, origins, refused }, running, statuses, { createServers });
}

/** A ListTsa record names a Target Set the Options record does not configure. */
function unlisted(n: number, records: ListRecord[], options: Row, out: ImportRead) {
  for (const record of records) {
    out.problems.push(
      problem(
        record.line,
        listColumnLabel('TsaNumber'),
        `Target Set ${n} has no address in the ${OPTIONS_KEYWORD} record on line ${options.line} (column ${tsaColumnLabel(n, 'IPAddress')}): give it one there, or remove this record`,
      ),
    );
  }
}

function cellRefused(servers: ListRecord[], at: { line: number; column: string | null }) {
  const record = servers.find((s) => s.line === at.line);
  return record !== undefined && [...record.refused].some((c) => listColumnLabel(c) === at.column);
}

/** The text of the cell a problem is located at, to quote it. */
function cellAt(
  at: { line: number; column: string | null },
  optionsLine: number,
  options: Row,
  lists: Row[],
): string {
  const position = Number(/^(\d+)/.exec(at.column ?? '')?.[1] ?? -1);
  if (position < 0) return '';
  const row = at.line === optionsLine ? options : lists.find((r) => r.line === at.line);
  return (row?.cells[position] ?? '').trim();
}

/** How many columns a record uses: up to its last cell that is not empty. */
function usedWidth(row: Row): number {
  const last = row.cells.findLastIndex((c) => !isBlank(c));
  return last + 1;
}

/** The ListTsa records by Target Set number, in the file's order; bad cells are problems. */
function readLists(rows: Row[], out: ImportRead): Map<number, ListRecord[]> {
  const byNumber = new Map<number, ListRecord[]>();
  for (const row of rows) {
    const width = row.cells.length;
    const used = usedWidth(row);
    if (width < LIST_RECORD_COLUMNS.min || used > LIST_RECORD_COLUMNS.max) {
      out.problems.push(
        problem(
          row.line,
          null,
          `A ${LIST_KEYWORD} record has ${LIST_RECORD_COLUMNS.min} to ${LIST_RECORD_COLUMNS.max} columns (application type, ${LIST_KEYWORD}, Target Set number, IP address, weighting[, secondary IP address[, description]]), not ${width}: see decision 024 in docs/migration.md`,
        ),
      );
      continue;
    }
    const cell = (column: ListColumn) => row.cells[LIST_COLUMNS[column]] ?? '';
    const numberText = cell('TsaNumber').trim();
    const number = /^(?:tsa?)?\s*(\d{1,2})$/i.exec(numberText);
    const n = number ? Number(number[1]) : NaN;
    if (!(n >= 1 && n <= TSA_COUNT)) {
      out.problems.push(
        problem(
          row.line,
          listColumnLabel('TsaNumber'),
          `The Target Set number must be a whole number from 1 to ${TSA_COUNT}, not "${numberText}"`,
        ),
      );
      continue;
    }
    const server: Record<string, unknown> = {};
    const refused = new Set<ListColumn>();
    const fields: [ListColumn, string, typeof text][] = [
      ['IpAddress', 'address', text],
      ['Weight', 'weight', int],
      ['SecondaryIpAddress', 'secondaryAddress', text],
      ['Description', 'description', freeText],
    ];
    for (const [column, field, codec] of fields) {
      const read = codec.read(cell(column), column);
      if ('problem' in read) {
        out.problems.push(problem(row.line, listColumnLabel(column), read.problem));
        refused.add(column);
      } else if (read.value !== undefined) server[field] = read.value;
    }
    const servers = byNumber.get(n) ?? [];
    if (servers.length === TARGET_SET_SERVERS.max) {
      out.problems.push(
        problem(
          row.line,
          listColumnLabel('TsaNumber'),
          `Target Set ${n} holds at most ${TARGET_SET_SERVERS.max} servers: this record is one more`,
        ),
      );
      continue;
    }
    servers.push({ line: row.line, number: n, server, refused });
    byNumber.set(n, servers);
  }
  return byNumber;
}

interface OptionsRead {
  /** The column count is of another release: no position can be trusted. */
  broken: boolean;
  /** The options, null when a cell or the schema refused them. */
  options: Configuration['options'] | null;
  /** The Target Sets the record configures (an address in their IPAddress column). */
  numbers: Set<number>;
  targetSets: Map<number, { value: Record<string, unknown>; refused: Set<string> }>;
  /** What to say of LeastLoadStart's unit, when it is set. */
  leastLoadStart: string | null;
}

/** The Options record: its option columns, then the 13 columns of each Target Set. */
function readOptions(row: Row, running: Configuration, out: ImportRead): OptionsRead {
  const result: OptionsRead = {
    broken: false,
    options: null,
    numbers: new Set(),
    targetSets: new Map(),
    leastLoadStart: null,
  };
  const width = row.cells.length;
  const used = usedWidth(row);
  if (width < OPTIONS_RECORD_COLUMNS || used > OPTIONS_RECORD_COLUMNS) {
    out.problems.push(
      problem(
        row.line,
        null,
        `The ${OPTIONS_KEYWORD} record has ${width} columns, not ${OPTIONS_RECORD_COLUMNS} (2, then 17 options, then ${TSA_COUNT} Target Sets × ${TSA_FIELDS.length}): it is laid out for another release of the source, whose columns this import cannot place. Export it from a release with ${TSA_COUNT} Target Sets of these ${TSA_FIELDS.length} columns, or lay it out as docs/migration.md shows`,
      ),
    );
    result.broken = true;
    return result;
  }
  const cell = (at: number) => row.cells[at] ?? '';
  // What the source has no column for is kept as it runs; a column it has and leaves empty takes
  // the field's default, as an omitted field does.
  const input = structuredClone(running.options) as Record<string, unknown>;
  const refused = new Set<string>();
  for (const column of OPTION_COLUMNS) {
    const label = columnLabel(column.at, column.name);
    const value = cell(column.at);
    if (!column.field) {
      if (!isBlank(value)) {
        out.notImported.push({
          table: 'IpfeOption',
          column: column.name,
          line: row.line,
          message: `not imported: column ${label} of IpfeOption ("${value.trim()}"): ${column.notHere}`,
        });
      }
      continue;
    }
    const read = column.codec.read(value, column.name);
    if ('problem' in read) {
      out.problems.push(problem(row.line, label, read.problem));
      refused.add(label);
      continue;
    }
    const slot = /^ipfe\.(A1|A2|B1|B2)\.address$/.exec(column.field)?.[1] as IpfeSlot | undefined;
    if (slot) {
      const node = running.options.ipfe[slot];
      (input.ipfe as Record<string, unknown>)[slot] =
        read.value === undefined
          ? null
          : { address: read.value, ...(node ? { agentPort: node.agentPort } : {}) };
    } else if (read.value === undefined) {
      delete input[column.field];
    } else {
      input[column.field] = read.value;
    }
  }
  const parsed = optionsSchema.safeParse(input);
  if (parsed.success && refused.size === 0) result.options = parsed.data;
  for (const issue of parsed.success ? [] : fieldErrorsOf(parsed.error)) {
    const label = optionColumnOf(issue.path);
    if (label && refused.has(label)) continue;
    const at = Number(/^(\d+)/.exec(label ?? '')?.[1] ?? -1);
    out.problems.push(
      problem(row.line, label, quotingTheCell(issue.message, at < 0 ? '' : cell(at).trim())),
    );
  }
  const leastLoad = cell(OPTION_COLUMNS.find((c) => c.name === 'LeastLoadStart')!.at).trim();
  if (/^\d+$/.test(leastLoad) && Number(leastLoad) > 0) {
    result.leastLoadStart = `LeastLoadStart (column 11) ${leastLoad} is read as the Least Load threshold, ${leastLoad} new connections/s: the source counts it in packets/s`;
  }

  for (let n = 1; n <= TSA_COUNT; n++) {
    if (isBlank(cell(tsaColumnAt(n, 'IPAddress')))) continue;
    result.numbers.add(n);
    const value: Record<string, unknown> = { number: n };
    const cellsRefused = new Set<string>();
    for (const field of TSA_FIELDS) {
      const label = tsaColumnLabel(n, field);
      const read = TSA_COLUMNS[field].codec.read(cell(tsaColumnAt(n, field)), `Tsa${n}${field}`);
      if ('problem' in read) {
        out.problems.push(problem(row.line, label, read.problem));
        cellsRefused.add(label);
      } else if (read.value !== undefined) {
        setPath(value, TSA_COLUMNS[field].field, read.value);
      }
    }
    const primary = value.primary as Record<string, unknown> | undefined;
    if (typeof primary?.address === 'string') {
      value.family = primary.address.includes(':') ? 'ipv6' : 'ipv4';
    }
    const secondary = value.secondary as Record<string, unknown> | undefined;
    if (secondary && secondary.address === undefined) {
      // A preferred IPFE without a secondary address says nothing: there is none.
      value.secondary = null;
    }
    value.secondary ??= null;
    result.targetSets.set(n, { value, refused: cellsRefused });
  }
  return result;
}
