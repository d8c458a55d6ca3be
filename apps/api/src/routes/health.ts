import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthViewSchema } from '@ipfe/schema';

const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Health'],
        operationId: 'getHealth',
        summary: 'Liveness and the latest revision',
        response: { 200: healthViewSchema },
      },
    },
    async () => ({
      status: 'ok' as const,
      revision: (await app.configRepository.latestInfo())?.number ?? 0,
    }),
  );
};

export default healthRoutes;
