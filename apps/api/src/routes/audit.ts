import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const auditRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/audit',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Audit'],
        summary: 'The audit log, newest first (admin only)',
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(1000).default(200),
          before: z.coerce.number().int().min(1).optional(),
        }),
        response: {
          200: z.object({
            items: z.array(
              z.object({
                id: z.number(),
                at: z.string(),
                user: z.string().nullable(),
                address: z.string(),
                action: z.string(),
                target: z.string(),
                status: z.number(),
                detail: z.string().nullable(),
              }),
            ),
          }),
        },
      },
    },
    async (request) => ({
      items: app.auditRepository.list(request.query.limit, request.query.before),
    }),
  );
};

export default auditRoutes;
