import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type {
  SnmpAuthProtocol,
  SnmpPrivProtocol,
  SnmpSecurityLevel,
  SnmpTrapDestination,
} from '@ipfe/schema';
import fp from 'fastify-plugin';

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
  readonly #listeners: (() => void)[] = [];

  constructor(private readonly db: Database.Database) {}

  /** The engine ID and the save counter, made on first use. */
  settings(): { engineId: string; generation: number } {
    const read = () =>
      this.db
        .prepare<[], { engine_id: string; generation: number }>(
          'SELECT engine_id, generation FROM snmp_trap_settings WHERE id = 1',
        )
        .get();
    let row = read();
    if (!row) {
      this.db
        .prepare(
          'INSERT INTO snmp_trap_settings (id, engine_id, generation) VALUES (1, ?, 0) ON CONFLICT (id) DO NOTHING',
        )
        .run(newEngineId());
      row = read()!;
    }
    return { engineId: row.engine_id, generation: row.generation };
  }

  destinations(): SnmpTrapDestination[] {
    return this.db
      .prepare<[], DestinationRow>('SELECT * FROM snmp_trap_destinations ORDER BY position')
      .all()
      .map(destinationOf);
  }

  /**
   * Replaces every destination, if the save counter is still `generation` (checked inside the
   * transaction); answers false, changing nothing, when someone saved in between.
   */
  replace(generation: number, destinations: readonly SnmpTrapDestination[]): boolean {
    const saved = this.db.transaction(() => {
      if (this.settings().generation !== generation) return false;
      this.db.prepare('DELETE FROM snmp_trap_destinations').run();
      const insert = this.db.prepare(
        `INSERT INTO snmp_trap_destinations (position, host, port, version, community, user,
           security_level, auth_protocol, auth_key, priv_protocol, priv_key)
         VALUES (@position, @host, @port, @version, @community, @user, @securityLevel,
           @authProtocol, @authKey, @privProtocol, @privKey)`,
      );
      destinations.forEach((d, position) =>
        insert.run({
          position,
          host: d.host,
          port: d.port,
          version: d.version,
          community: d.version === 'v2c' ? d.community : null,
          user: d.version === 'v3' ? d.user : null,
          securityLevel: d.version === 'v3' ? d.securityLevel : null,
          authProtocol: d.version === 'v3' ? d.authProtocol : null,
          authKey: d.version === 'v3' ? d.authKey : null,
          privProtocol: d.version === 'v3' ? d.privProtocol : null,
          privKey: d.version === 'v3' ? d.privKey : null,
        }),
      );
      this.db
        .prepare('UPDATE snmp_trap_settings SET generation = generation + 1 WHERE id = 1')
        .run();
      return true;
    })();
    if (saved) for (const listener of this.#listeners) listener();
    return saved;
  }

  /** Tells `listener` after each save. */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    snmpTrapsRepository: SnmpTrapsRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('snmpTrapsRepository', new SnmpTrapsRepository(app.db));
  },
  { name: 'snmp-traps-repository', dependencies: ['db'] },
);
