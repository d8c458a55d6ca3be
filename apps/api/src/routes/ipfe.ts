import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { unservedTsas } from '../domain/serving.ts';
import { agentStatusViewSchema, alarmsViewSchema, ipfeViewSchema, IPFE_SLOTS } from '@ipfe/schema';

const ipfeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/ipfe',
    {
      schema: {
        tags: ['Status'],
        operationId: 'listIpfeSlots',
        summary:
          'Per IPFE slot: push state, desired and applied revision, last contact, owned TSAs, alarms',
        response: { 200: ipfeViewSchema },
      },
    },
    async () => {
      const { number, config } = await app.configRepository.running();
      const active = await app.agentSyncRepository.activeAlarms();
      return {
        latestRevision: number,
        items: app.agentSync.view(config).map((slot) => ({
          ...slot,
          // The response schema keeps of each alarm what a slot's view shows (slotAlarmSchema).
          alarms: active.filter((a) => a.slot === slot.slot),
        })),
        unserved: unservedTsas(config, app.agentSync.statuses()),
      };
    },
  );

  app.get(
    '/api/ipfe/:slot/status',
    {
      schema: {
        tags: ['Status'],
        operationId: 'getAgentStatus',
        summary: "An agent's latest status as the OAM last read it (null when unreachable)",
        params: z.object({ slot: z.enum(IPFE_SLOTS) }),
        response: { 200: agentStatusViewSchema },
      },
    },
    async (request) => ({ status: app.agentSync.statuses().get(request.params.slot) ?? null }),
  );

  app.get(
    '/api/alarms',
    {
      schema: {
        tags: ['Status'],
        operationId: 'listAlarms',
        summary: 'Active alarms, and the history of cleared ones (newest first)',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(5000).default(500) }),
        response: { 200: alarmsViewSchema },
      },
    },
    async (request) => ({
      active: await app.agentSyncRepository.activeAlarms(),
      history: await app.agentSyncRepository.history(request.query.limit),
    }),
  );
};

export default ipfeRoutes;
