import type { SnmpTrapDestination } from '@ipfe/schema';
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
    // Read once here and kept as each save leaves them: sending a trap reads nothing.
    const { engineId } = await repository.settings();
    let destinations: readonly SnmpTrapDestination[] = await repository.destinations();
    const sender = new SnmpTrapSender({
      destinations: () => [...destinations],
      engineId: () => engineId,
      log: app.log.child({ component: 'snmp-traps' }),
    });
    app.decorate('snmpTraps', sender);
    repository.onChange((saved) => {
      destinations = saved;
      sender.changed();
    });
    app.agentSync.onAlarm((event) => sender.send(event));
    app.addHook('onClose', async () => sender.close());
  },
  { name: 'snmp-traps', dependencies: ['snmp-traps-repository', 'agent-sync'] },
);
