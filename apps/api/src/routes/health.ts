import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthViewSchema, oamListViewSchema } from '@ipfe/schema';

const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Health'],
        operationId: 'getHealth',
        summary: 'Liveness, the latest revision, the store and this OAM’s role',
        response: { 200: healthViewSchema },
      },
    },
    async () => ({
      status: 'ok' as const,
      revision: (await app.configRepository.latestInfo())?.number ?? 0,
      store: app.store.engine,
      role: app.cluster.role,
    }),
  );

  app.get(
    '/api/oams',
    {
      schema: {
        tags: ['Health'],
        operationId: 'listOams',
        summary: 'The OAMs that share this store: address, role, last heartbeat',
        response: { 200: oamListViewSchema },
      },
    },
    async () => ({ items: await app.cluster.members() }),
  );
};

export default healthRoutes;
