import fp from 'fastify-plugin';
import { SnmpTrapSender } from '../services/snmp-traps.ts';
import { TrapDispatcher } from '../services/trap-dispatcher.ts';

declare module 'fastify' {
  interface FastifyInstance {
    snmpTraps: SnmpTrapSender;
  }
}

/**
 * A trap to every configured destination for each alarm raised and cleared (decision 017), sent
 * by the leader of the OAMs from the outbox the alarm log fills (decision 022).
 */
export default fp(
  async (app) => {
    const repository = app.snmpTrapsRepository;
    const { engineId } = await repository.settings();
    const log = app.log.child({ component: 'snmp-traps' });
    let dispatcher: TrapDispatcher | null = null;
    const sender = new SnmpTrapSender({
      destinations: () => dispatcher?.destinations() ?? [],
      engineId: () => engineId,
      log,
    });
    dispatcher = new TrapDispatcher(app.agentSyncRepository, repository, sender, log);
    const traps = dispatcher;
    app.decorate('snmpTraps', sender);
    app.agentSync.onAlarm(() => traps.kick());
    app.cluster.onTopic((topic) => {
      if (topic === 'alarms') traps.kick();
    });
    app.cluster.onRole((role) => (role === 'leader' ? traps.lead() : traps.follow()));
    app.addHook('onReady', async () => {
      if (app.cluster.role === 'leader') traps.lead();
    });
    app.addHook('onClose', async () => {
      await traps.close();
      sender.close();
    });
  },
  { name: 'snmp-traps', dependencies: ['snmp-traps-repository', 'agent-sync', 'cluster'] },
);
