import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  checkConfiguration,
  errorsOf,
  issueText,
  revisionDiffSchema,
  revisionInfoSchema,
  revisionLogSchema,
  underiveConfiguration,
} from '@ipfe/schema';
import { newServingProblems } from '../domain/serving.ts';
import { notFound, validationError } from '../http/errors.ts';
import { describeLocation } from '../domain/validate-change.ts';
import { diffConfigs } from '../domain/diff.ts';
import { sendCommit } from '../http/commit-headers.ts';

const revisionNumber = z.coerce
  .number({ error: 'A revision is a whole number' })
  .int({ error: 'A revision is a whole number' })
  .min(0, { error: 'A revision is a whole number from 0' })
  .max(Number.MAX_SAFE_INTEGER);

const revisionRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Revisions'];
  const documentOf = async (number: number) => {
    const document = await app.configRepository.document(number);
    if (!document) throw notFound(`Revision ${number}`);
    return document;
  };

  app.get(
    '/api/revisions',
    {
      schema: {
        tags,
        operationId: 'listRevisions',
        summary: 'The revision log, newest first',
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(1000).default(100),
          before: revisionNumber.optional(),
        }),
        response: { 200: revisionLogSchema },
      },
    },
    async (request) => ({
      items: await app.configRepository.list(request.query.limit, request.query.before),
      total: await app.configRepository.count(),
    }),
  );

  app.get(
    '/api/revisions/:rev',
    {
      schema: {
        tags,
        operationId: 'getRevision',
        errors: ['NOT_FOUND'],
        summary: "A revision's config document (revision 0 is the empty configuration)",
        params: z.object({ rev: revisionNumber }),
      },
    },
    async (request) => documentOf(request.params.rev),
  );

  app.get(
    '/api/revisions/:rev/diff',
    {
      schema: {
        tags,
        operationId: 'diffRevisions',
        errors: ['NOT_FOUND'],
        summary: 'What changed from revision `against` to revision `rev`',
        params: z.object({ rev: revisionNumber }),
        querystring: z.object({ against: revisionNumber }),
        response: { 200: revisionDiffSchema },
      },
    },
    async (request) => {
      const to = await documentOf(request.params.rev);
      const from = await documentOf(request.query.against);
      return { from: from.revision, to: to.revision, ...diffConfigs(from.config, to.config) };
    },
  );

  app.post(
    '/api/revisions/:rev/rollback',
    {
      schema: {
        tags,
        operationId: 'rollbackToRevision',
        errors: ['NOT_FOUND'],
        summary:
          "Commit an old revision's content as a new revision (201); when it is the running configuration already, nothing is committed (200 with the running revision, header x-ipfe-unchanged)",
        params: z.object({ rev: revisionNumber }),
        response: { 200: revisionInfoSchema, 201: revisionInfoSchema },
      },
    },
    async (request, reply) => {
      const old = await documentOf(request.params.rev);
      const config = underiveConfiguration(old.config);
      // Rules may have grown stricter since: an old revision is committed only if it passes today's.
      const errors = errorsOf([
        ...checkConfiguration(config),
        ...newServingProblems(
          await app.configRepository.current(),
          config,
          app.agentSync.statuses(),
        ),
      ]);
      if (errors.length > 0) {
        const first = errors[0]!;
        const where = describeLocation(config, first.path);
        const field = issueText({
          path: first.path.slice(where.entity.length + 1),
          message: first.message,
        });
        const more = errors.length - 1;
        throw validationError(
          errors.map(({ path, message }) => ({ path, message })),
          `Revision ${old.revision} does not pass today's rules: ${where.label.charAt(0).toUpperCase()}${where.label.slice(1)}, ${field}${more > 0 ? ` (and ${more} more ${more === 1 ? 'problem' : 'problems'})` : ''}`,
        );
      }
      const { revision } = await app.configRepository.commit(request.user!.name, () => ({
        config,
        summary: `Rollback to revision ${old.revision}`,
        value: null,
      }));
      return sendCommit(reply, revision, () => app.configRepository.runningInfo());
    },
  );

  app.get(
    '/api/export',
    {
      schema: {
        tags: ['Export'],
        operationId: 'exportConfiguration',
        errors: ['NOT_FOUND'],
        summary: 'Download a config document (default: the latest revision)',
        querystring: z.object({ revision: revisionNumber.optional() }),
      },
    },
    async (request, reply) => {
      const number =
        request.query.revision ?? (await app.configRepository.latestInfo())?.number ?? 0;
      const document = await documentOf(number);
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="ipfe-config-r${number}.json"`)
        .send(JSON.stringify(document, null, 2));
    },
  );
};

export default revisionRoutes;
