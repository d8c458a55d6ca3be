import type { SnmpTrapDestination } from '@ipfe/schema';
import type { FastifyBaseLogger } from 'fastify';
import snmp from 'net-snmp';
import type { AlarmEvent } from './alarm-mirror.ts';
import { trapOf } from './snmp-trap-varbinds.ts';

/** How one trap to one destination went: what the OAM's metrics count. */
export interface TrapOutcome {
  notification: AlarmEvent['kind'];
  version: SnmpTrapDestination['version'];
  outcome: 'sent' | 'failed';
}

export interface SnmpTrapSenderOptions {
  destinations: () => SnmpTrapDestination[];
  engineId: () => string;
  log: FastifyBaseLogger;
}

const transportOf = (host: string) => (host.includes(':') ? 'udp6' : 'udp4');

function sessionOf(d: SnmpTrapDestination, engineId: string): snmp.Session {
  const common = { trapPort: d.port, transport: transportOf(d.host) } as const;
  if (d.version === 'v2c') {
    return snmp.createSession(d.host, d.community, { ...common, version: snmp.Version2c });
  }
  const user: snmp.User = { name: d.user, level: snmp.SecurityLevel[d.securityLevel] };
  if (d.authProtocol && d.authKey) {
    user.authProtocol = snmp.AuthProtocols[d.authProtocol];
    user.authKey = d.authKey;
  }
  if (d.privProtocol && d.privKey) {
    user.privProtocol = snmp.PrivProtocols[d.privProtocol];
    user.privKey = d.privKey;
  }
  return snmp.createV3Session(d.host, user, {
    ...common,
    version: snmp.Version3,
    engineID: engineId,
  });
}

/**
 * Sends an SNMP trap (SNMPv2-Trap PDU, v2c or v3) to every configured destination for each alarm
 * raised and cleared. Traps are UDP datagrams that nobody answers, so sending never waits: alarm
 * handling calls `send` and returns. Every error is caught, logged and counted, never thrown.
 * Sessions (one UDP socket each) are kept per destination until the destinations change.
 */
type OpenSessions = { destination: SnmpTrapDestination; session: snmp.Session }[];

export class SnmpTrapSender {
  #sessions: OpenSessions | null = null;
  readonly #listeners: ((outcome: TrapOutcome) => void)[] = [];

  constructor(private readonly options: SnmpTrapSenderOptions) {}

  /** Tells `listener` how each trap to each destination went. */
  onTrap(listener: (outcome: TrapOutcome) => void): void {
    this.#listeners.push(listener);
  }

  send(event: AlarmEvent): void {
    let sessions: OpenSessions;
    try {
      sessions = this.#open();
    } catch (err) {
      this.options.log.warn({ err }, 'SNMP trap destinations could not be read');
      return;
    }
    const { oid, varbinds } = trapOf(event);
    for (const { destination, session } of sessions) {
      const done = (error: Error | null) => {
        const notification = event.kind;
        if (error) {
          this.options.log.warn(
            { host: destination.host, port: destination.port, err: error, alarm: event.alarm.id },
            'SNMP trap not sent',
          );
        }
        for (const listener of this.#listeners)
          listener({
            notification,
            version: destination.version,
            outcome: error ? 'failed' : 'sent',
          });
      };
      try {
        session.trap(oid, varbinds, done);
      } catch (err) {
        done(err as Error);
      }
    }
  }

  /** The destinations were saved: the next trap opens sessions to the new ones. */
  changed(): void {
    this.#closeAll();
  }

  close(): void {
    this.#closeAll();
  }

  #open(): OpenSessions {
    if (this.#sessions) return this.#sessions;
    const engineId = this.options.engineId();
    this.#sessions = this.options.destinations().flatMap((destination) => {
      try {
        const session = sessionOf(destination, engineId);
        // A socket error (no route, ICMP unreachable) arrives here, not at a trap's callback.
        session.on('error', (err: Error) =>
          this.options.log.warn(
            { host: destination.host, port: destination.port, err },
            'SNMP trap session error',
          ),
        );
        return [{ destination, session }];
      } catch (err) {
        this.options.log.warn(
          { host: destination.host, port: destination.port, err },
          'SNMP trap session could not be opened',
        );
        return [];
      }
    });
    return this.#sessions;
  }

  #closeAll() {
    for (const { session } of this.#sessions ?? []) {
      try {
        session.close();
      } catch {
        // Already closed (its socket failed): nothing left to release.
      }
    }
    this.#sessions = null;
  }
}
