import type { SnmpTrapDestination } from '@ipfe/schema';
import type { FastifyBaseLogger } from 'fastify';
import type { AgentSyncRepository } from '../repositories/agent-sync-repository.ts';
import type { SnmpTrapsRepository } from '../repositories/snmp-traps-repository.ts';
import type { SnmpTrapSender } from './snmp-traps.ts';

const BATCH = 100;

/**
 * Sends the traps the alarm log left in the outbox, on the leader only (decision 022). Each is
 * taken out of the outbox (committed) and then sent at once: a store that fails meanwhile leaves
 * it for the next try or the next leader, never sent twice. Only a process killed in the instant
 * between that commit and the send loses it (decision 022).
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
        await this.#readDestinations();
        if (!this.#leading) return;
        const taken = await this.outbox.takeTraps(BATCH);
        for (const { event } of taken) this.sender.send(event);
        if (taken.length < BATCH) return;
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
