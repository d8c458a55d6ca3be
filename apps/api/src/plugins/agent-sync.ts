import fp from 'fastify-plugin';
import { AgentSync, type AgentSyncOptions } from '../services/agent-sync.ts';

declare module 'fastify' {
  interface FastifyInstance {
    agentSync: AgentSync;
  }
}

/**
 * Starts polling once the app is ready, and pushing while this OAM leads (decision 022); stops on
 * close.
 */
export default fp(
  async (app, opts: AgentSyncOptions & { enabled: boolean }) => {
    const sync = await AgentSync.create(
      app.configRepository,
      app.agentSyncRepository,
      opts,
      app.log.child({ component: 'agent-sync' }),
    );
    app.decorate('agentSync', sync);
    app.addHook('onClose', async () => sync.stop());
    if (!opts.enabled) return;
    app.configRepository.onCommit(() => sync.revisionCommitted());
    app.cluster.onTopic((topic) => {
      if (topic === 'revision') sync.revisionCommitted();
    });
    app.cluster.onRole((role) => (role === 'leader' ? void sync.lead() : sync.follow()));
    app.addHook('onReady', async () => {
      await sync.start();
      if (app.cluster.role === 'leader') await sync.lead();
    });
  },
  { name: 'agent-sync', dependencies: ['config-repository', 'agent-sync-repository', 'cluster'] },
);
