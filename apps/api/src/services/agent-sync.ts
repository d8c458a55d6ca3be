import {
  agentStatusSchema,
  IPFE_SLOTS,
  type AgentStatus,
  type Configuration,
  type IpfeSlot,
  type IpfeSlotSync,
} from '@ipfe/schema';
import type { FastifyBaseLogger } from 'fastify';
import type { ConfigRepository } from '../repositories/config-repository.ts';
import type { AgentSyncRepository, SyncRecord } from '../repositories/agent-sync-repository.ts';
import { createAgentClient, type AgentClient } from './agent-client.ts';

export interface AgentSyncOptions {
  token: string;
  /** How often each agent's status is read (default 1 s). */
  pollIntervalMs: number;
  requestTimeoutMs: number;
  /** Retry backoff: doubles from min to max, with jitter. */
  backoffMinMs: number;
  backoffMaxMs: number;
  /** PEM of the CA that signed the agents' certificates: the agents are then spoken to over HTTPS. */
  agentCa?: string;
}

/** The OAM's own alarm about an agent it cannot reach. */
export const UNREACHABLE_ALARM = {
  code: 5101,
  name: 'IPFE Unreachable',
  severity: 'major',
} as const;
const UNREACHABLE_AFTER_FAILED_POLLS = 3;

interface Slot {
  record: SyncRecord;
  target: string | null;
  inFlight: boolean;
  retry: NodeJS.Timeout | null;
  backoffMs: number;
  status: AgentStatus | null;
  failedPolls: number;
  contactSavedAt: number;
  /** The agent process last seen (its boot id): a new one is a restart. */
  boot: string | null;
}

/**
 * Pushes every committed revision to each configured IPFE agent and reads back what each runs
 * (SPEC §4.1, §5). Each slot has its own retry timer and in-flight request, so a slow or dead
 * agent delays nobody: not a commit, not another agent, not the GUI.
 */
export class AgentSync {
  #slots = new Map<IpfeSlot, Slot>();
  #poll: NodeJS.Timeout | null = null;
  #stopped = false;
  readonly #client: AgentClient;

  constructor(
    private readonly configs: ConfigRepository,
    private readonly repository: AgentSyncRepository,
    private readonly options: AgentSyncOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.#client = createAgentClient({ ca: options.agentCa });
    for (const slot of IPFE_SLOTS) {
      this.#slots.set(slot, {
        record: repository.get(slot),
        target: null,
        inFlight: false,
        retry: null,
        backoffMs: options.backoffMinMs,
        status: null,
        failedPolls: 0,
        contactSavedAt: 0,
        boot: null,
      });
    }
  }

  start(): void {
    this.revisionCommitted();
    this.#poll = setInterval(() => void this.#pollAll(), this.options.pollIntervalMs);
    void this.#pollAll();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#poll) clearInterval(this.#poll);
    for (const s of this.#slots.values()) if (s.retry) clearTimeout(s.retry);
    await this.#client.close();
  }

  /** A new revision exists (or the agents' addresses changed): every configured agent gets it. */
  revisionCommitted(): void {
    const latest = this.configs.latestInfo()?.number ?? null;
    const config = this.configs.current();
    for (const [slotName, slot] of this.#slots) {
      slot.target = targetOf(config, slotName, this.#client.scheme);
      if (!slot.target || latest === null) {
        slot.status = null;
        continue;
      }
      if (slot.record.desiredRevision !== latest) {
        this.#save(slot, {
          desiredRevision: latest,
          state: slot.record.appliedRevision === latest ? 'synced' : 'pending',
        });
        slot.backoffMs = this.options.backoffMinMs;
        this.#schedule(slotName, 0);
      }
    }
  }

  #save(slot: Slot, change: Partial<SyncRecord>) {
    slot.record = { ...slot.record, ...change };
    this.repository.save(slot.record);
  }

  #schedule(slotName: IpfeSlot, delayMs: number) {
    const slot = this.#slots.get(slotName)!;
    if (slot.retry) clearTimeout(slot.retry);
    slot.retry = setTimeout(() => {
      slot.retry = null;
      void this.#push(slotName);
    }, delayMs);
  }

  async #push(slotName: IpfeSlot): Promise<void> {
    const slot = this.#slots.get(slotName)!;
    const desired = slot.record.desiredRevision;
    if (this.#stopped || slot.inFlight || !slot.target || desired === null) return;
    if (slot.record.appliedRevision === desired || slot.record.rejectedRevision === desired) return;
    const document = this.configs.document(desired);
    if (!document) return;
    slot.inFlight = true;
    try {
      const response = await this.#client.call('PUT', `${slot.target}/v1/config`, {
        token: this.options.token,
        body: JSON.stringify(document),
        timeoutMs: this.options.requestTimeoutMs,
      });
      const body = response.text;
      const now = new Date().toISOString();
      if (response.status === 200) {
        this.#save(slot, {
          appliedRevision: desired,
          appliedSha256: document.sha256,
          state: 'synced',
          lastError: null,
          lastContact: now,
        });
        slot.backoffMs = this.options.backoffMinMs;
        this.log.info({ slot: slotName, revision: desired }, 'agent applied revision');
      } else if (response.status === 422 || response.status === 409 || response.status === 401) {
        const error =
          response.status === 401 ? 'The agent refused the deployment token' : messageOf(body);
        this.#save(slot, {
          rejectedRevision: desired,
          rejectedError: error,
          state: 'rejected',
          lastError: error,
          lastContact: now,
        });
        this.log.warn(
          { slot: slotName, revision: desired, status: response.status, error },
          'agent rejected revision',
        );
      } else {
        this.#failed(slotName, `HTTP ${response.status}`);
      }
    } catch (err) {
      this.#failed(slotName, (err as Error).name === 'TimeoutError' ? 'timed out' : causeOf(err));
    } finally {
      slot.inFlight = false;
    }
    // A newer revision may have been committed while this push was in flight.
    if (slot.record.desiredRevision !== desired) this.#schedule(slotName, 0);
  }

  #failed(slotName: IpfeSlot, error: string) {
    const slot = this.#slots.get(slotName)!;
    this.#save(slot, { state: 'unreachable', lastError: error });
    const jittered = slot.backoffMs * (0.5 + Math.random() / 2);
    slot.backoffMs = Math.min(this.options.backoffMaxMs, slot.backoffMs * 2);
    this.#schedule(slotName, jittered);
  }

  async #pollAll(): Promise<void> {
    await Promise.all([...this.#slots.keys()].map((slot) => this.#pollOne(slot)));
  }

  async #pollOne(slotName: IpfeSlot): Promise<void> {
    const slot = this.#slots.get(slotName)!;
    if (this.#stopped || !slot.target) return;
    try {
      const response = await this.#client.call('GET', `${slot.target}/v1/status`, {
        token: this.options.token,
        timeoutMs: this.options.requestTimeoutMs,
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      const status = agentStatusSchema.parse(JSON.parse(response.text));
      if (status.slot !== slotName) throw new Error(`answered as ${status.slot}`);
      slot.status = status;
      slot.failedPolls = 0;
      slot.record.lastContact = new Date().toISOString();
      this.#noteAgentRevision(slotName, status);
      this.#syncAlarms(slotName, status);
    } catch (err) {
      slot.status = null;
      slot.failedPolls++;
      if (slot.failedPolls === UNREACHABLE_AFTER_FAILED_POLLS) {
        this.#save(slot, {
          state: slot.record.state === 'rejected' ? 'rejected' : 'unreachable',
          lastError: causeOf(err),
        });
        this.#raiseUnreachable(slotName, causeOf(err));
      }
    }
  }

  /** What the agent runs tells whether a push is owed: an agent that restarted or came back gets one. */
  #noteAgentRevision(slotName: IpfeSlot, status: AgentStatus) {
    const slot = this.#slots.get(slotName)!;
    const desired = slot.record.desiredRevision;
    if (desired === null) return;
    if (
      slot.boot !== null &&
      slot.boot !== status.boot &&
      slot.record.rejectedRevision === desired
    ) {
      // A restarted agent (new token, new version) gets the rejected revision once more.
      this.log.info(
        { slot: slotName, revision: desired },
        'agent restarted: pushing the rejected revision again',
      );
      this.#save(slot, { rejectedRevision: null, rejectedError: null, state: 'pending' });
    }
    slot.boot = status.boot;
    const document = status.revision === desired ? this.configs.document(desired) : null;
    if (document && status.sha256 === document.sha256) {
      if (slot.record.state !== 'synced' || slot.record.appliedRevision !== desired) {
        this.#save(slot, {
          appliedRevision: desired,
          appliedSha256: status.sha256,
          state: 'synced',
          lastError: null,
        });
      }
    } else if (slot.record.rejectedRevision !== desired && !slot.inFlight) {
      // The agent runs something else: it restarted, or came back after being unreachable.
      const cameBack =
        slot.record.state === 'unreachable' || slot.record.appliedRevision === desired;
      if (cameBack) {
        this.#save(slot, { appliedRevision: status.revision, state: 'pending' });
        slot.backoffMs = this.options.backoffMinMs;
        this.#schedule(slotName, 0);
      } else if (!slot.retry) {
        this.#schedule(slotName, 0);
      }
    }
    this.#persistContact(slot);
  }

  /** Last contact is kept in SQLite at most every 10 s: a poll a second need not be an fsync a second. */
  #persistContact(slot: Slot) {
    const now = Date.now();
    if (now - slot.contactSavedAt < 10_000) return;
    slot.contactSavedAt = now;
    this.repository.save(slot.record);
  }

  #syncAlarms(slotName: IpfeSlot, status: AgentStatus) {
    const key = (a: {
      code: number;
      targetSet: number | null;
      server: string | null;
      raisedAt: string;
    }) => `${a.code}|${a.targetSet ?? ''}|${a.server ?? ''}|${a.raisedAt}`;
    this.repository.transaction(() => {
      const stored = this.repository.activeAlarms(slotName);
      const reported = new Set(status.alarms.map(key));
      const storedKeys = new Set(stored.map(key));
      const now = new Date().toISOString();
      for (const alarm of stored) {
        if (alarm.code === UNREACHABLE_ALARM.code) {
          this.repository.clear(alarm.id, now);
        } else if (!reported.has(key(alarm))) {
          const cleared = status.alarmHistory.find((h) => key(h) === key(alarm))?.clearedAt ?? now;
          this.repository.clear(alarm.id, cleared);
        }
      }
      for (const alarm of status.alarms) {
        if (!storedKeys.has(key(alarm))) {
          const { code, name, severity, targetSet, server, text, raisedAt } = alarm;
          this.repository.raise({
            slot: slotName,
            code,
            name,
            severity,
            targetSet,
            server,
            text,
            raisedAt,
          });
        }
      }
    });
  }

  #raiseUnreachable(slotName: IpfeSlot, error: string) {
    const active = this.repository.activeAlarms(slotName);
    for (const alarm of active) {
      if (alarm.code !== UNREACHABLE_ALARM.code)
        this.repository.clear(alarm.id, new Date().toISOString());
    }
    if (active.some((a) => a.code === UNREACHABLE_ALARM.code)) return;
    this.repository.raise({
      slot: slotName,
      ...UNREACHABLE_ALARM,
      targetSet: null,
      server: null,
      text: `IPFE ${slotName} does not answer (${error})`,
      raisedAt: new Date().toISOString(),
    });
  }

  /** Per slot: configuration, push state and what the agent reported last. */
  view(config: Configuration): IpfeSlotSync[] {
    return IPFE_SLOTS.map((slotName) => {
      const slot = this.#slots.get(slotName)!;
      const node = config.options.ipfe[slotName];
      const r = slot.record;
      return {
        slot: slotName,
        configured: Boolean(node),
        address: node?.address ?? null,
        agentPort: node?.agentPort ?? null,
        state: node ? r.state : 'not configured',
        desiredRevision: node ? r.desiredRevision : null,
        appliedRevision: node ? r.appliedRevision : null,
        rejected:
          node && r.rejectedRevision !== null && r.rejectedRevision === r.desiredRevision
            ? { revision: r.rejectedRevision, error: r.rejectedError ?? '' }
            : null,
        lastError: node ? r.lastError : null,
        lastContact: node ? r.lastContact : null,
        owned: slot.status?.owned ?? [],
        mateAlive: slot.status?.mate.alive ?? null,
        dataplane: slot.status?.dataplane ?? null,
        forwards: slot.status?.forwards ?? null,
        connections: slot.status?.connections ?? null,
      };
    });
  }

  /** The slot that serves a TSA now, by what the agents report (the active role wins a tie). */
  ownerOf(tsa: string): IpfeSlot | null {
    let standby: IpfeSlot | null = null;
    for (const [slotName, slot] of this.#slots) {
      const owned = slot.status?.owned.find((o) => o.tsa === tsa);
      if (owned?.role === 'active') return slotName;
      if (owned) standby = slotName;
    }
    return standby;
  }

  /** The reporting agents' live view of a Target Set: from the agent that serves its primary TSA. */
  liveTargetSet(number: number, tsa: string) {
    const owner = this.ownerOf(tsa);
    const status = owner ? this.#slots.get(owner)!.status : null;
    return { owner, targetSet: status?.targetSets.find((t) => t.number === number) ?? null };
  }

  statuses(): Map<IpfeSlot, AgentStatus | null> {
    return new Map([...this.#slots].map(([name, slot]) => [name, slot.status]));
  }
}

function targetOf(config: Configuration, slot: IpfeSlot, scheme: 'http' | 'https'): string | null {
  const node = config.options.ipfe[slot];
  if (!node) return null;
  const host = node.address.includes(':') ? `[${node.address}]` : node.address;
  return `${scheme}://${host}:${node.agentPort}`;
}

function messageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } };
    return parsed.error?.message ?? body.slice(0, 300);
  } catch {
    return body.slice(0, 300);
  }
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? (err as { code?: string }).code ?? (err as Error).message ?? String(err);
}
