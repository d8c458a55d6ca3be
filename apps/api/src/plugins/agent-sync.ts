import fp from 'fastify-plugin';
import { AgentSync, type AgentSyncOptions } from '../services/agent-sync.ts';

declare module 'fastify' {
  interface FastifyInstance {
    agentSync: AgentSync;
  }
}

/** Starts pushing and polling once the app is ready; stops on close. */
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
    app.addHook('onReady', async () => sync.start());
  },
  { name: 'agent-sync', dependencies: ['config-repository', 'agent-sync-repository'] },
);
