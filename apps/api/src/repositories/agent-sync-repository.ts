import type { AlarmRecord, IpfeSlot, SyncState } from '@ipfe/schema';
import fp from 'fastify-plugin';
import type { Selectable } from 'kysely';
import type { Schema } from '../store/schema.ts';
import type { Db, Store } from '../store/store.ts';

export type { AlarmRecord, SyncState };

export interface SyncRecord {
  slot: IpfeSlot;
  desiredRevision: number | null;
  appliedRevision: number | null;
  appliedSha256: string | null;
  rejectedRevision: number | null;
  rejectedError: string | null;
  lastError: string | null;
  lastContact: string | null;
  state: SyncState;
}

export type NewAlarm = Omit<AlarmRecord, 'id' | 'clearedAt'>;

/** An alarm written to the log: raised (clearedAt null) or cleared. */
export interface AlarmEvent {
  kind: 'raised' | 'cleared';
  alarm: AlarmRecord;
}

/** An alarm event whose trap is not sent yet. */
export interface PendingTrap {
  id: number;
  event: AlarmEvent;
}

interface SyncRow {
  slot: IpfeSlot;
  desired_revision: number | null;
  applied_revision: number | null;
  applied_sha256: string | null;
  rejected_revision: number | null;
  rejected_error: string | null;
  last_error: string | null;
  last_contact: string | null;
  state: SyncState;
}

/** A row of the alarms table, as a select returns it. */
type AlarmRow = Selectable<Schema['alarms']>;

const syncOf = (r: SyncRow): SyncRecord => ({
  slot: r.slot,
  desiredRevision: r.desired_revision,
  appliedRevision: r.applied_revision,
  appliedSha256: r.applied_sha256,
  rejectedRevision: r.rejected_revision,
  rejectedError: r.rejected_error,
  lastError: r.last_error,
  lastContact: r.last_contact,
  state: r.state,
});

const alarmOf = (r: AlarmRow): AlarmRecord => ({
  id: r.id,
  slot: r.slot,
  code: r.code,
  name: r.name,
  severity: r.severity,
  targetSet: r.target_set,
  server: r.server,
  text: r.text,
  raisedAt: r.raised_at,
  clearedAt: r.cleared_at,
});

/** Push state per IPFE slot and the alarm log: what survives an OAM restart. */
export class AgentSyncRepository {
  constructor(
    private readonly store: Store,
    private readonly db: Db = store.db,
  ) {}

  async get(slot: IpfeSlot): Promise<SyncRecord> {
    const row = await this.db
      .selectFrom('agent_sync')
      .selectAll()
      .where('slot', '=', slot)
      .executeTakeFirst();
    return row
      ? syncOf(row)
      : {
          slot,
          desiredRevision: null,
          appliedRevision: null,
          appliedSha256: null,
          rejectedRevision: null,
          rejectedError: null,
          lastError: null,
          lastContact: null,
          state: 'pending',
        };
  }

  async save(record: SyncRecord): Promise<void> {
    const row = {
      desired_revision: record.desiredRevision,
      applied_revision: record.appliedRevision,
      applied_sha256: record.appliedSha256,
      rejected_revision: record.rejectedRevision,
      rejected_error: record.rejectedError,
      last_error: record.lastError,
      last_contact: record.lastContact,
      state: record.state,
    };
    await this.db
      .insertInto('agent_sync')
      .values({ slot: record.slot, ...row })
      .onConflict((oc) => oc.column('slot').doUpdateSet(row))
      .execute();
  }

  async activeAlarms(slot?: string): Promise<AlarmRecord[]> {
    let query = this.db.selectFrom('alarms').selectAll().where('cleared_at', 'is', null);
    if (slot) query = query.where('slot', '=', slot);
    return (await query.orderBy('raised_at').execute()).map(alarmOf);
  }

  async history(limit: number): Promise<AlarmRecord[]> {
    const rows = await this.db
      .selectFrom('alarms')
      .selectAll()
      .where('cleared_at', 'is not', null)
      .orderBy('cleared_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map(alarmOf);
  }

  /** Answers the new alarm's id. */
  async raise(alarm: NewAlarm): Promise<number> {
    const { id } = await this.db
      .insertInto('alarms')
      .values({
        slot: alarm.slot,
        code: alarm.code,
        name: alarm.name,
        severity: alarm.severity,
        target_set: alarm.targetSet,
        server: alarm.server,
        text: alarm.text,
        raised_at: alarm.raisedAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(id);
  }

  async clear(id: number, clearedAt: string): Promise<void> {
    await this.db
      .updateTable('alarms')
      .set({ cleared_at: clearedAt })
      .where('id', '=', id)
      .where('cleared_at', 'is', null)
      .execute();
  }

  /** Leaves the trap of `event` to be sent (by the leader, once this transaction commits). */
  async queueTrap(event: AlarmEvent): Promise<void> {
    await this.db
      .insertInto('trap_outbox')
      .values({ event: JSON.stringify(event), created_at: new Date().toISOString() })
      .execute();
    await this.store.notify(this.db, 'alarms');
  }

  /**
   * Takes the oldest traps not sent yet out of the outbox, in the order their alarms changed: one
   * statement, so two OAMs that both believe they lead never take the same trap.
   */
  async takeTraps(limit: number): Promise<PendingTrap[]> {
    const oldest = this.db.selectFrom('trap_outbox').select('id').orderBy('id').limit(limit);
    const rows = await this.db
      .deleteFrom('trap_outbox')
      .where('id', 'in', oldest)
      .returning(['id', 'event'])
      .execute();
    return rows
      .map((r) => ({ id: Number(r.id), event: JSON.parse(r.event) as AlarmEvent }))
      .sort((a, b) => a.id - b.id);
  }

  /** Runs `fn` in one transaction, with the repository of it. */
  transaction<T>(fn: (repository: AgentSyncRepository) => Promise<T>): Promise<T> {
    return this.store.transaction((trx) => fn(new AgentSyncRepository(this.store, trx)), this.db);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    agentSyncRepository: AgentSyncRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('agentSyncRepository', new AgentSyncRepository(app.store));
  },
  { name: 'agent-sync-repository', dependencies: ['db'] },
);
