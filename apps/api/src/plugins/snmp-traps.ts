import fp from 'fastify-plugin';
import { SnmpTrapSender } from '../services/snmp-traps.ts';

declare module 'fastify' {
  interface FastifyInstance {
    snmpTraps: SnmpTrapSender;
  }
}

/** A trap to every configured destination for each alarm raised and cleared (decision 017). */
export default fp(
  async (app) => {
    const repository = app.snmpTrapsRepository;
    const sender = new SnmpTrapSender({
      destinations: () => repository.destinations(),
      engineId: () => repository.settings().engineId,
      log: app.log.child({ component: 'snmp-traps' }),
    });
    app.decorate('snmpTraps', sender);
    repository.onChange(() => sender.changed());
    app.agentSync.onAlarm((event) => sender.send(event));
    app.addHook('onClose', async () => sender.close());
  },
  { name: 'snmp-traps', dependencies: ['snmp-traps-repository', 'agent-sync'] },
);
