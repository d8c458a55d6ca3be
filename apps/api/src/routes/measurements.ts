import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { measurementsViewSchema } from '@ipfe/schema';

const measurementRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/measurements',
    {
      schema: {
        tags: ['Status'],
        operationId: 'getMeasurements',
        summary:
          "The source product's measurements per Target Set and server: totals now and rates per second of the last hour, summed over the IPFEs",
        response: { 200: measurementsViewSchema },
      },
    },
    async () => app.agentSync.measurements((await app.configRepository.running()).config),
  );
};

export default measurementRoutes;
