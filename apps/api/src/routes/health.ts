import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Health'],
        summary: 'Liveness and the latest revision',
        response: { 200: z.object({ status: z.literal('ok'), revision: z.number() }) },
      },
    },
    async () => ({
      status: 'ok' as const,
      revision: app.configRepository.latestInfo()?.number ?? 0,
    }),
  );
};

export default healthRoutes;
