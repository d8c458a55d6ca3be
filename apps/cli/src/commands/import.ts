import type { ErrorBody, RevisionInfo, SourceCsvPreview } from '@ipfe/schema';
import type { Command } from '../command.ts';
import { changeCount, changeLines, changeSummary } from '../changes.ts';
import { readText } from '../document-file.ts';
import { CliError, EXIT } from '../errors.ts';

const CSV = 'text/csv; charset=utf-8';

export const importCommand: Command = {
  name: 'import',
  args: 'FILE.csv',
  summary: "Import the source product's bulk-export CSV: preview, then one commit",
  details: [
    'Any problem of a row or column: each printed (file:line: column: message), exit 1, nothing committed.',
    'Columns nothing takes are listed as not imported. The commit is guarded by the previewed revision: another commit since is refused (exit 3, stale: nothing committed).',
  ],
  options: {},
  positionals: ['FILE.csv'],
  async run(context, [file]) {
    const text = readText(context.path(file!), file!);
    const client = context.client();
    const preview = await client.request<SourceCsvPreview | ErrorBody>(
      'POST',
      '/api/import/source-csv/preview',
      { raw: { text, contentType: CSV }, accept: [400, 404] },
    );
    if (preview.status === 404) {
      throw new CliError('this OAM has no CSV import (POST /api/import/source-csv/preview: 404)');
    }
    if (preview.status === 400) {
      const { error } = preview.body as ErrorBody;
      throw new CliError(`${file}: ${error.message}`);
    }
    const { basedOn, changes, problems, notImported } = preview.body as SourceCsvPreview;
    for (const column of notImported) context.err(`${file}:${column.line}: ${column.message}`);
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
      `/api/import/source-csv?basedOn=${basedOn}`,
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
