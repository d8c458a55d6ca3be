import {
  IMPORT_FILE_FORMATS,
  type ErrorBody,
  type ImportFileFormat,
  type RevisionInfo,
  type SourceCsvPreview,
} from '@ipfe/schema';
import { UsageError, type Command } from '../command.ts';
import { changeCount, changeLines, changeSummary } from '../changes.ts';
import { readText } from '../document-file.ts';
import { CliError, EXIT } from '../errors.ts';

const CSV = 'text/csv; charset=utf-8';

const LAYOUTS: Record<ImportFileFormat, string> = {
  source: "the source product's bulk file (IPFE Options and ListTsa records, by position)",
  named: "this OAM's named-column CSV (a header row per table)",
};

export const importCommand: Command = {
  name: 'import',
  args: '[--format source|named] [--create-servers] FILE.csv',
  summary:
    "Import the source product's bulk file, or this OAM's named-column CSV: preview, then one commit",
  details: [
    "Layouts: source = the source product's own bulk file (IPFE Options and ListTsa records, by position, no header); named = this OAM's named-column CSV. Without --format, the layout the file shows.",
    'Any problem of a row or column: each printed (file:line: column: message), exit 1, nothing committed.',
    'Addresses of the IP lists that no application server has: listed; --create-servers creates them (named after the address, on the XSI network that holds it) in the same commit.',
    'Columns nothing takes are listed as not imported. The commit is guarded by the previewed revision: another commit since is refused (exit 3, stale: nothing committed).',
  ],
  options: {
    format: {
      type: 'string',
      value: 'source|named',
      description: "the file's layout (default: as the file shows)",
    },
    'create-servers': {
      type: 'boolean',
      description: 'create the application servers the file names and this OAM lacks',
    },
  },
  positionals: ['FILE.csv'],
  async run(context, [file], values) {
    const format = values.format;
    if (format !== undefined && !(IMPORT_FILE_FORMATS as readonly unknown[]).includes(format)) {
      throw new UsageError(
        `--format must be one of ${IMPORT_FILE_FORMATS.join(', ')}, not ${JSON.stringify(format)}`,
      );
    }
    const createServers = values['create-servers'] === true;
    const query = [
      ...(typeof format === 'string' ? [`format=${format}`] : []),
      ...(createServers ? ['createServers=true'] : []),
    ];
    const text = readText(context.path(file!), file!);
    const client = context.client();
    const preview = await client.request<SourceCsvPreview | ErrorBody>(
      'POST',
      `/api/import/source-csv/preview${query.length > 0 ? `?${query.join('&')}` : ''}`,
      { raw: { text, contentType: CSV }, accept: [400, 404] },
    );
    if (preview.status === 404) {
      throw new CliError('this OAM has no CSV import (POST /api/import/source-csv/preview: 404)');
    }
    if (preview.status === 400) {
      const { error } = preview.body as ErrorBody;
      throw new CliError(`${file}: ${error.message}`);
    }
    const read = preview.body as SourceCsvPreview;
    const { basedOn, changes, problems, notImported, serversToCreate } = read;
    context.err(`${file}: read as ${LAYOUTS[read.format]}`);
    for (const note of read.notes) context.err(`${file}: ${note}`);
    for (const column of notImported) context.err(`${file}:${column.line}: ${column.message}`);
    if (serversToCreate.length > 0) {
      context.err(
        `${file}: application servers not known here, ${createServers ? 'created with the import' : 'which --create-servers creates with the import'}:`,
      );
      for (const server of serversToCreate) {
        const where = server.addresses.map((a, i) => `${a} on ${server.xsiNetworks[i]}`);
        context.err(`  + ${server.name} (${where.join(', ')}; line ${server.lines.join(', ')})`);
      }
    }
    if (problems.length > 0) {
      const lines = problems.map(
        (p) =>
          `${file}${p.line === null ? '' : `:${p.line}`}: ${p.column === null ? p.path : p.column}: ${p.message}`,
      );
      throw new CliError(
        `${lines.join('\n')}\n${file}: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}; nothing committed`,
      );
    }
    if (changeCount(changes) === 0) {
      context.out(`No changes: ${file} matches revision ${basedOn}; nothing committed`);
      return EXIT.ok;
    }
    context.out(`Import of ${file} against revision ${basedOn}:`);
    for (const line of changeLines(changes)) context.out(`  ${line}`);
    context.out(changeSummary(changes));
    // The OAM takes the previewed revision as ?basedOn; If-Match says the same to a proxy or log.
    const answer = await client.request<RevisionInfo | ErrorBody>(
      'POST',
      `/api/import/source-csv?${[`basedOn=${basedOn}`, `format=${read.format}`, ...(createServers ? ['createServers=true'] : [])].join('&')}`,
      {
        raw: { text, contentType: CSV },
        headers: { 'if-match': `"${basedOn}"` },
        accept: [400, 409],
      },
    );
    if (answer.status !== 200 && answer.status !== 201) {
      throw new CliError(
        `${file}: refused, nothing committed: ${(answer.body as ErrorBody).error.message}`,
        answer.status === 409 ? EXIT.stale : EXIT.error,
      );
    }
    const revision = answer.body as RevisionInfo;
    context.out(
      answer.headers.get('x-ipfe-unchanged')
        ? `No changes: nothing committed`
        : `Imported ${file}: revision ${revision.number}`,
    );
    return EXIT.ok;
  },
};
