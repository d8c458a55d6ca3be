import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deriveConfiguration,
  IMPORT_FILE_FORMATS,
  revisionInfoSchema,
  sourceCsvPreviewSchema,
  underiveConfiguration,
  type ConfigDiff,
  type Configuration,
} from '@ipfe/schema';
import { ApiError, notFound, validationError } from '../http/errors.ts';
import { sendCommit } from '../http/commit-headers.ts';
import { acceptCsvBodies, CSV_MAX_BYTES } from '../http/csv-body.ts';
import { diffConfigs } from '../domain/diff.ts';
import { overwrittenEdits, type HistoryEntry } from '../domain/overwrites.ts';
import { readImportFile, writeImportFile } from '../domain/source-csv/import-file.ts';
import type { CsvProblem } from '../domain/source-csv/shared.ts';

const csvBody = z.string({
  error: 'Send the CSV file as the body, with Content-Type: text/csv',
});

const format = z
  .enum(IMPORT_FILE_FORMATS, {
    error: `format must be one of: ${IMPORT_FILE_FORMATS.join(', ')}`,
  })
  .optional()
  .describe(
    "source: the source product's own bulk file (positional IpfeOption and IpfeListTsa records, no header); named: this OAM's named-column CSV. Omitted: as the file's first records show",
  );

const createServers = z
  .enum(['true', 'false'], { error: 'createServers must be true or false' })
  .default('false')
  .describe(
    'true: create the application servers the preview offers (serversToCreate), in the same commit',
  )
  .transform((value) => value === 'true');

const revisionNumber = (what: string) =>
  z.coerce
    .number({ error: `${what} is a revision number` })
    .int({ error: `${what} is a whole revision number` })
    .min(0, { error: `${what} is a revision number from 0` })
    .max(Number.MAX_SAFE_INTEGER);

/** Revisions an import preview compares at most, to say which of its changes undo others' work. */
const HISTORY_MAX = 200;

const NO_CHANGES: ConfigDiff = { added: [], removed: [], changed: [] };

function changesOf(running: Configuration, candidate: Configuration | null): ConfigDiff {
  if (!candidate) return NO_CHANGES;
  try {
    return diffConfigs(deriveConfiguration(running), deriveConfiguration(candidate));
  } catch {
    // A candidate the rules refuse may not derive (a server that is no application server);
    // its problems say why, and there is nothing sound to compare.
    return NO_CHANGES;
  }
}

function problemsError(problems: CsvProblem[]): ApiError {
  const first = problems[0]!;
  const more = problems.length - 1;
  return validationError(
    problems.map(({ path, message }) => ({ path, message })),
    `Nothing was committed: ${first.path}: ${first.message}${more > 0 ? ` (and ${more} more ${more === 1 ? 'problem' : 'problems'})` : ''}`,
  );
}

/**
 * The source product's bulk-export CSV: a preview of what importing a file would change, the
 * import itself (one commit, guarded by the revision the preview was based on), and the export of
 * any revision in the same layout. docs/migration.md has the mapping.
 */
const importRoutes: FastifyPluginAsyncZod = async (app) => {
  acceptCsvBodies(app);
  const tags = ['Import'];
  /** The revisions from `from` to `to`, oldest first: at most the latest HISTORY_MAX. */
  const history = async (from: number, to: number): Promise<HistoryEntry[]> => {
    const first = Math.max(from, to - HISTORY_MAX);
    const authors = new Map(
      (await app.configRepository.list(to - first + 1, to + 1)).map((info) => [
        info.number,
        info.author,
      ]),
    );
    const out: HistoryEntry[] = [];
    for (let number = first; number <= to; number++) {
      const document = await app.configRepository.document(number);
      if (document)
        out.push({ number, author: authors.get(number) ?? '', config: document.config });
    }
    return out;
  };
  const running = async () => {
    const { number, config } = await app.configRepository.running();
    return { basedOn: number, config };
  };

  app.post(
    '/api/import/source-csv/preview',
    {
      bodyLimit: CSV_MAX_BYTES,
      schema: {
        tags,
        operationId: 'previewSourceCsvImport',
        summary:
          "What importing a file (the source product's bulk file, or our named-column CSV) would change against the running revision (basedOn), every problem by line and column, the columns not imported and the application servers it would create; commits nothing",
        consumes: ['text/csv'],
        querystring: z.object({
          format,
          createServers,
          since: revisionNumber('since')
            .optional()
            .describe(
              'The revision the file was first previewed against: changes that undo what others committed since are listed in overwrites',
            ),
        }),
        body: csvBody,
        response: { 200: sourceCsvPreviewSchema },
      },
    },
    async (request) => {
      const { basedOn, config } = await running();
      const read = readImportFile(request.body, config, app.agentSync.statuses(), {
        format: request.query.format,
        createServers: request.query.createServers,
      });
      const changes = changesOf(config, read.candidate);
      const since = request.query.since;
      if (since !== undefined && since > basedOn) {
        throw validationError(
          [{ path: 'since', message: `since must be at most ${basedOn}, the running revision` }],
          `since must be at most ${basedOn}, the running revision`,
        );
      }
      return {
        basedOn,
        format: read.format,
        changes,
        overwrites:
          since === undefined
            ? []
            : overwrittenEdits(changes, await history(since, basedOn), request.user!.name),
        problems: read.problems,
        notImported: read.notImported,
        serversToCreate: read.serversToCreate,
        createServers: request.query.createServers,
        notes: read.notes,
      };
    },
  );

  app.post(
    '/api/import/source-csv',
    {
      bodyLimit: CSV_MAX_BYTES,
      schema: {
        tags,
        operationId: 'importSourceCsv',
        errors: ['CONFLICT'],
        summary:
          "Commit a file (the source product's bulk file, or our named-column CSV) as one revision (201), with the application servers it offers when createServers=true, if the running revision is still `basedOn` (else 409) and the file has no problem (else 400, nothing committed); no change: 200 with the running revision, header x-ipfe-unchanged",
        consumes: ['text/csv'],
        querystring: z.object({ basedOn: revisionNumber('basedOn'), format, createServers }),
        body: csvBody,
        response: { 200: revisionInfoSchema, 201: revisionInfoSchema },
      },
    },
    async (request, reply) => {
      const { basedOn, format: asked, createServers: create } = request.query;
      const { revision } = await app.configRepository.commit(request.user!.name, (base, latest) => {
        if (latest !== basedOn) {
          throw new ApiError(
            'CONFLICT',
            `The running revision is ${latest}, not ${basedOn} as when this file was previewed; preview it again (nothing was committed)`,
          );
        }
        const read = readImportFile(request.body, base, app.agentSync.statuses(), {
          format: asked,
          createServers: create,
        });
        if (!read.config) throw problemsError(read.problems);
        const summary =
          read.format === 'source'
            ? "Import of the source product's bulk file"
            : "Import of the source product's CSV";
        return { config: read.config, summary, value: null };
      });
      return sendCommit(reply, revision, () => app.configRepository.runningInfo());
    },
  );

  app.get(
    '/api/export/source-csv',
    {
      schema: {
        tags: ['Export'],
        operationId: 'exportSourceCsv',
        errors: ['NOT_FOUND'],
        summary:
          "Download a revision (default: the latest) as the source product's bulk file (format=source: what its Bulk Import reads) or as our named-column CSV (format=named, the default: every part of the configuration, lossless)",
        querystring: z.object({
          revision: revisionNumber('revision').optional(),
          format: z
            .enum(IMPORT_FILE_FORMATS, {
              error: `format must be one of: ${IMPORT_FILE_FORMATS.join(', ')}`,
            })
            .default('named')
            .describe(
              "source: the source product's own bulk file; named (default): this OAM's named-column CSV",
            ),
        }),
        produces: ['text/csv'],
      },
    },
    async (request, reply) => {
      const number =
        request.query.revision ?? (await app.configRepository.latestInfo())?.number ?? 0;
      const document = await app.configRepository.document(number);
      if (!document) throw notFound(`Revision ${number}`);
      const { format: layout } = request.query;
      const name = layout === 'source' ? `ipfe-source-bulk-r${number}` : `ipfe-source-r${number}`;
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}.csv"`)
        .send(writeImportFile(underiveConfiguration(document.config), layout));
    },
  );
};

export default importRoutes;
