import { randomBytes } from 'node:crypto';
import type {
  SnmpAuthProtocol,
  SnmpPrivProtocol,
  SnmpSecurityLevel,
  SnmpTrapDestination,
} from '@ipfe/schema';
import fp from 'fastify-plugin';
import type { Db, Store } from '../store/store.ts';

interface DestinationRow {
  host: string;
  port: number;
  version: 'v2c' | 'v3';
  community: string | null;
  user: string | null;
  security_level: SnmpSecurityLevel | null;
  auth_protocol: SnmpAuthProtocol | null;
  auth_key: string | null;
  priv_protocol: SnmpPrivProtocol | null;
  priv_key: string | null;
}

const destinationOf = (r: DestinationRow): SnmpTrapDestination =>
  r.version === 'v2c'
    ? { host: r.host, port: r.port, version: 'v2c', community: r.community ?? '' }
    : {
        host: r.host,
        port: r.port,
        version: 'v3',
        user: r.user ?? '',
        securityLevel: r.security_level ?? 'noAuthNoPriv',
        authProtocol: r.auth_protocol,
        authKey: r.auth_key,
        privProtocol: r.priv_protocol,
        privKey: r.priv_key,
      };

/**
 * An SNMPv3 engine ID of RFC 3411's format 5 (octets chosen by the vendor): the enterprise (the
 * placeholder PEN 32473 with the high bit set), 05, then 8 random bytes, made once per OAM.
 */
function newEngineId(): string {
  return `80007ed905${randomBytes(8).toString('hex')}`;
}

/** The trap destinations (with their secrets) and the OAM's SNMPv3 engine ID. */
export class SnmpTrapsRepository {
  constructor(
    private readonly store: Store,
    private readonly db: Db = store.db,
  ) {}

  /** The engine ID and the save counter, made on first use. */
  async settings(db: Db = this.db): Promise<{ engineId: string; generation: number }> {
    const read = () =>
      db
        .selectFrom('snmp_trap_settings')
        .select(['engine_id', 'generation'])
        .where('id', '=', 1)
        .executeTakeFirst();
    let row = await read();
    if (!row) {
      await db
        .insertInto('snmp_trap_settings')
        .values({ id: 1, engine_id: newEngineId(), generation: 0 })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      row = (await read())!;
    }
    return { engineId: row.engine_id, generation: row.generation };
  }

  async destinations(): Promise<SnmpTrapDestination[]> {
    const rows = await this.db
      .selectFrom('snmp_trap_destinations')
      .selectAll()
      .orderBy('position')
      .execute();
    return rows.map((r) => destinationOf(r as DestinationRow));
  }

  /**
   * Replaces every destination, if the save counter is still `generation` (checked inside the
   * transaction); answers false, changing nothing, when someone saved in between.
   */
  async replace(
    generation: number,
    destinations: readonly SnmpTrapDestination[],
  ): Promise<boolean> {
    return this.store.transaction(async (trx) => {
      if ((await this.settings(trx)).generation !== generation) return false;
      await trx.deleteFrom('snmp_trap_destinations').execute();
      if (destinations.length > 0)
        await trx
          .insertInto('snmp_trap_destinations')
          .values(
            destinations.map((d, position) => ({
              position,
              host: d.host,
              port: d.port,
              version: d.version,
              community: d.version === 'v2c' ? d.community : null,
              user: d.version === 'v3' ? d.user : null,
              security_level: d.version === 'v3' ? d.securityLevel : null,
              auth_protocol: d.version === 'v3' ? d.authProtocol : null,
              auth_key: d.version === 'v3' ? d.authKey : null,
              priv_protocol: d.version === 'v3' ? d.privProtocol : null,
              priv_key: d.version === 'v3' ? d.privKey : null,
            })),
          )
          .execute();
      await trx
        .updateTable('snmp_trap_settings')
        .set((eb) => ({ generation: eb('generation', '+', 1) }))
        .where('id', '=', 1)
        .execute();
      return true;
    }, this.db);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    snmpTrapsRepository: SnmpTrapsRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('snmpTrapsRepository', new SnmpTrapsRepository(app.store));
  },
  { name: 'snmp-traps-repository', dependencies: ['db'] },
);
