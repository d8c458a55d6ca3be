import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dataPathSchema, forwardedProtocolSchema, IPFE_SLOTS } from '@ipfe/schema';

const alarmView = z.object({
  id: z.number(),
  slot: z.string(),
  code: z.number(),
  name: z.string(),
  severity: z.string(),
  targetSet: z.number().nullable(),
  server: z.string().nullable(),
  text: z.string(),
  raisedAt: z.string(),
  clearedAt: z.string().nullable(),
});

/** An active alarm as a slot's view gives it: what it is and what it is on. */
const activeAlarmView = alarmView.pick({
  code: true,
  name: true,
  severity: true,
  targetSet: true,
  server: true,
  text: true,
});

const slotView = z.object({
  slot: z.enum(IPFE_SLOTS),
  configured: z.boolean(),
  address: z.string().nullable(),
  agentPort: z.number().nullable(),
  state: z.enum(['synced', 'pending', 'rejected', 'unreachable', 'not configured']),
  desiredRevision: z.number().nullable(),
  appliedRevision: z.number().nullable(),
  rejected: z.object({ revision: z.number(), error: z.string() }).nullable(),
  lastError: z.string().nullable(),
  lastContact: z.string().nullable(),
  owned: z.array(
    z.object({ tsa: z.string(), targetSet: z.number(), role: z.enum(['active', 'standby']) }),
  ),
  mateAlive: z.boolean().nullable(),
  dataplane: dataPathSchema.nullable(),
  forwards: z.array(forwardedProtocolSchema).nullable(),
  connections: z.number().nullable(),
  alarms: z.array(activeAlarmView),
});

const ipfeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/ipfe',
    {
      schema: {
        tags: ['Status'],
        summary:
          'Per IPFE slot: push state, desired and applied revision, last contact, owned TSAs, alarms',
        response: { 200: z.object({ latestRevision: z.number(), items: z.array(slotView) }) },
      },
    },
    async () => {
      const config = app.configRepository.current();
      const active = app.agentSyncRepository.activeAlarms();
      return {
        latestRevision: app.configRepository.latestInfo()?.number ?? 0,
        items: app.agentSync.view(config).map((slot) => ({
          ...slot,
          alarms: active
            .filter((a) => a.slot === slot.slot)
            .map(({ code, name, severity, targetSet, server, text }) => ({
              code,
              name,
              severity,
              targetSet,
              server,
              text,
            })),
        })),
      };
    },
  );

  app.get(
    '/api/ipfe/:slot/status',
    {
      schema: {
        tags: ['Status'],
        summary: "An agent's latest status as the OAM last read it (null when unreachable)",
        params: z.object({ slot: z.enum(IPFE_SLOTS) }),
      },
    },
    async (request) => ({ status: app.agentSync.statuses().get(request.params.slot) ?? null }),
  );

  app.get(
    '/api/alarms',
    {
      schema: {
        tags: ['Status'],
        summary: 'Active alarms, and the history of cleared ones (newest first)',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(5000).default(500) }),
        response: { 200: z.object({ active: z.array(alarmView), history: z.array(alarmView) }) },
      },
    },
    async (request) => ({
      active: app.agentSyncRepository.activeAlarms(),
      history: app.agentSyncRepository.history(request.query.limit),
    }),
  );
};

export default ipfeRoutes;
