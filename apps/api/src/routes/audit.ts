import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditPageSchema } from '@ipfe/schema';

const auditRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/audit',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Audit'],
        operationId: 'listAuditEntries',
        summary: 'The audit log, newest first (admin only)',
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(1000).default(200),
          before: z.coerce.number().int().min(1).optional(),
        }),
        response: { 200: auditPageSchema },
      },
    },
    async (request) => ({
      items: await app.auditRepository.list(request.query.limit, request.query.before),
    }),
  );
};

export default auditRoutes;
