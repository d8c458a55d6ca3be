import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  IPFE_SLOTS,
  MESSAGES,
  optionsSchema,
  servesThrough,
  type Configuration,
  type FieldError,
} from '@ipfe/schema';
import { validationError } from '../http/errors.ts';
import { etagOf, requireIfMatch } from '../http/etag.ts';
import { validateEdit } from '../domain/validate-change.ts';
import { commitHeaders } from '../http/commit-headers.ts';
import { IF_MATCH_ERRORS } from '../plugins/openapi.ts';

/**
 * An IPFE slot's address is read-only while a Target Set names the slot as its Active IPFE, or
 * as one of its active-active group (decision 018).
 */
function activeSlotChanges(config: Configuration, next: Configuration['options']): FieldError[] {
  const errors: FieldError[] = [];
  for (const slot of IPFE_SLOTS) {
    if (config.options.ipfe[slot]?.address === next.ipfe[slot]?.address) continue;
    const users = config.targetSets.filter((ts) => servesThrough(ts, slot)).map((ts) => ts.number);
    if (users.length > 0) {
      errors.push({
        path: `ipfe.${slot}.address`,
        message: `${MESSAGES.readOnly}: Target Set ${users.join(', ')} ${users.length === 1 ? 'is' : 'are'} served through IPFE ${slot}`,
      });
    }
  }
  return errors;
}

/** The running options and their ETag, computed once per revision. */
const OPTIONS = Symbol('options');

const optionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['IPFE options'];

  app.get(
    '/api/options',
    {
      schema: {
        tags,
        operationId: 'getOptions',
        summary: 'IPFE node addresses and the global options',
        response: { 200: optionsSchema },
      },
    },
    async (_request, reply) => {
      const { options, etag } = await app.configRepository.perRevision(OPTIONS, (config) => ({
        options: config.options,
        etag: etagOf(config.options),
      }));
      return reply.header('etag', etag).send(options);
    },
  );

  app.put(
    '/api/options',
    {
      schema: {
        tags,
        operationId: 'editOptions',
        errors: IF_MATCH_ERRORS,
        summary:
          'Replace the options (If-Match required; omitted fields take their defaults; no change: no revision, header x-ipfe-unchanged)',
        body: optionsSchema,
        response: { 200: optionsSchema },
      },
    },
    async (request, reply) => {
      const { revision, value } = await app.configRepository.commit(
        request.user!.name,
        (config) => {
          requireIfMatch(request.headers['if-match'], etagOf(config.options), () => config.options);
          const readOnly = activeSlotChanges(config, request.body);
          if (readOnly.length > 0) throw validationError(readOnly);
          const candidate = { ...config, options: request.body };
          validateEdit(config, candidate, 'options', 'ipfe', app.agentSync.statuses());
          return { config: candidate, summary: 'Edit IPFE options', value: request.body };
        },
      );
      return commitHeaders(reply.header('etag', etagOf(value)), revision).send(value);
    },
  );
};

export default optionsRoutes;
