import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  resolveSnmpTrapDestinations,
  snmpTrapDestinationView,
  snmpTrapsInputSchema,
  snmpTrapsViewSchema,
  type SnmpTrapsView,
} from '@ipfe/schema';
import { ApiError, validationError } from '../http/errors.ts';
import { etagOf, requireIfMatch } from '../http/etag.ts';
import { IF_MATCH_ERRORS } from '../plugins/openapi.ts';

/**
 * IPFE › Configuration › Options › SNMP traps: where the OAM sends a trap for each alarm raised and
 * cleared. Kept in the OAM only, not in the revisions the agents get (decision 017).
 */
const snmpTrapRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['IPFE options'];
  const repository = app.snmpTrapsRepository;

  const current = async () => {
    const { engineId, generation } = await repository.settings();
    const view: SnmpTrapsView = {
      engineId,
      destinations: (await repository.destinations()).map(snmpTrapDestinationView),
    };
    return { view, generation, etag: etagOf({ engineId, generation }) };
  };

  app.get(
    '/api/options/snmp-traps',
    {
      schema: {
        tags,
        operationId: 'getSnmpTraps',
        summary:
          'The SNMP trap destinations of the alarms and the OAM’s SNMPv3 engine ID (secrets: only whether set)',
        response: { 200: snmpTrapsViewSchema },
      },
    },
    async (_request, reply) => {
      const { view, etag } = await current();
      return reply.header('etag', etag).send(view);
    },
  );

  app.put(
    '/api/options/snmp-traps',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        operationId: 'editSnmpTraps',
        errors: IF_MATCH_ERRORS,
        summary:
          'Replace the SNMP trap destinations (admin; If-Match required; an omitted community or key keeps the stored one)',
        body: snmpTrapsInputSchema,
        response: { 200: snmpTrapsViewSchema },
      },
    },
    async (request, reply) => {
      const before = await current();
      requireIfMatch(request.headers['if-match'], before.etag, () => before.view);
      const { destinations, errors } = resolveSnmpTrapDestinations(
        request.body,
        await repository.destinations(),
      );
      if (errors.length > 0) throw validationError(errors);
      if (!(await repository.replace(before.generation, destinations))) {
        throw new ApiError(
          'PRECONDITION_FAILED',
          'Someone else changed the trap destinations since you loaded them; reload to see their version',
        );
      }
      const after = await current();
      return reply.header('etag', after.etag).send(after.view);
    },
  );
};

export default snmpTrapRoutes;
