import { valueAt } from './shared.ts';
import { stringify } from 'csv-stringify/sync';
import type { Configuration } from '@ipfe/schema';
import {
  APPLICATION_TYPE,
  LIST_COLUMNS,
  LIST_KEYWORD,
  OPTION_COLUMNS,
  OPTIONS_KEYWORD,
  OPTIONS_RECORD_COLUMNS,
  TSA_COLUMNS,
  TSA_FIELDS,
  tsaColumnAt,
  freeText,
  int,
  text,
} from './bulk-layout.ts';

/**
 * The configuration as the source product's Bulk Import reads it: one Options record (the options
 * and the 32 Target Sets' columns, empty for a number not configured) and one ListTsa record per
 * server of each IP list, CRLF line ends. A column with no field here is written empty. What the
 * source has no column for (agent ports, forwarded ports, BGP, XSI networks, application servers,
 * peer node groups) is not in it: docs/migration.md lists it.
 */
export function writeBulkFile(config: Configuration): string {
  const options: string[] = Array.from({ length: OPTIONS_RECORD_COLUMNS }, () => '');
  options[0] = APPLICATION_TYPE;
  options[1] = OPTIONS_KEYWORD;
  for (const column of OPTION_COLUMNS) {
    if (column.field)
      options[column.at] = column.codec.write(valueAt(config.options, column.field));
  }
  const records: string[][] = [options];
  const targetSets = [...config.targetSets].sort((a, b) => a.number - b.number);
  for (const ts of targetSets) {
    for (const field of TSA_FIELDS) {
      const { field: path, codec } = TSA_COLUMNS[field];
      options[tsaColumnAt(ts.number, field)] = codec.write(valueAt(ts, path));
    }
    for (const server of ts.servers) {
      const list = Array.from({ length: LIST_COLUMNS.Description + 1 }, () => '');
      list[0] = APPLICATION_TYPE;
      list[1] = LIST_KEYWORD;
      list[LIST_COLUMNS.TsaNumber] = String(ts.number);
      list[LIST_COLUMNS.IpAddress] = text.write(server.address);
      list[LIST_COLUMNS.Weight] = int.write(server.weight);
      list[LIST_COLUMNS.SecondaryIpAddress] = text.write(server.secondaryAddress);
      list[LIST_COLUMNS.Description] = freeText.write(server.description);
      records.push(list);
    }
  }
  return stringify(records, { record_delimiter: 'windows' });
}
