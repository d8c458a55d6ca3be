import type { SnmpTrapDestination } from '@ipfe/schema';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentSyncRepository } from '../repositories/agent-sync-repository.ts';
import type { SnmpTrapsRepository } from '../repositories/snmp-traps-repository.ts';
import type { SnmpTrapSender } from './snmp-traps.ts';

const BATCH = 100;

/**
 * Sends the traps the alarm log left in the outbox, on the leader only (decision 022): each is
 * sent, then deleted. A leader killed in between leaves it to the next leader, which sends it
 * again (at least once, never lost; the alarm id in the trap tells a manager the repeat).
 */
export class TrapDispatcher {
  #leading = false;
  #draining: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  #generation: number | null = null;
  #destinations: readonly SnmpTrapDestination[] = [];

  constructor(
    private readonly outbox: AgentSyncRepository,
    private readonly settings: SnmpTrapsRepository,
    private readonly sender: SnmpTrapSender,
    private readonly log: FastifyBaseLogger,
    /** How often the outbox is looked at besides after each alarm change (a failed send retried). */
    private readonly retryMs = 2000,
  ) {}

  /** The destinations as last read: what the sender opens sessions to. */
  destinations(): SnmpTrapDestination[] {
    return [...this.#destinations];
  }

  lead(): void {
    this.#leading = true;
    if (!this.#timer) {
      this.#timer = setInterval(() => this.kick(), this.retryMs);
      this.#timer.unref();
    }
    this.kick();
  }

  follow(): void {
    this.#leading = false;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** There may be traps to send: sends them (after the drain under way, if one is). */
  kick(): void {
    if (!this.#leading) return;
    if (this.#draining) {
      this.#again = true;
      return;
    }
    this.#draining = this.#drain().finally(() => {
      this.#draining = null;
      if (this.#again) {
        this.#again = false;
        this.kick();
      }
    });
  }

  async close(): Promise<void> {
    this.follow();
    await this.#draining;
  }

  async #drain(): Promise<void> {
    try {
      for (;;) {
        const pending = await this.outbox.pendingTraps(BATCH);
        if (pending.length === 0 || !this.#leading) return;
        await this.#readDestinations();
        for (const { event } of pending) this.sender.send(event);
        await this.outbox.sentTraps(pending.map((p) => p.id));
        if (pending.length < BATCH) return;
      }
    } catch (err) {
      this.log.warn({ err }, 'could not send the pending SNMP traps; trying again');
    }
  }

  /** Reads the destinations again when their save counter moved (a save on any OAM). */
  async #readDestinations(): Promise<void> {
    const { generation } = await this.settings.settings();
    if (generation === this.#generation) return;
    this.#destinations = await this.settings.destinations();
    this.#generation = generation;
    this.sender.changed();
  }
}
