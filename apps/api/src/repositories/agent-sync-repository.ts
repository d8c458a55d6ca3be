import type Database from 'better-sqlite3';
import type { AlarmRecord, IpfeSlot, SyncState } from '@ipfe/schema';
import fp from 'fastify-plugin';

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

interface AlarmRow {
  id: number;
  slot: string;
  code: number;
  name: string;
  severity: string;
  target_set: number | null;
  server: string | null;
  text: string;
  raised_at: string;
  cleared_at: string | null;
}

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
  constructor(private readonly db: Database.Database) {}

  get(slot: IpfeSlot): SyncRecord {
    const row = this.db
      .prepare<[string], SyncRow>('SELECT * FROM agent_sync WHERE slot = ?')
      .get(slot);
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

  save(record: SyncRecord): void {
    this.db
      .prepare(
        `INSERT INTO agent_sync (slot, desired_revision, applied_revision, applied_sha256, rejected_revision,
           rejected_error, last_error, last_contact, state)
         VALUES (@slot, @desiredRevision, @appliedRevision, @appliedSha256, @rejectedRevision, @rejectedError,
           @lastError, @lastContact, @state)
         ON CONFLICT (slot) DO UPDATE SET desired_revision = excluded.desired_revision,
           applied_revision = excluded.applied_revision, applied_sha256 = excluded.applied_sha256,
           rejected_revision = excluded.rejected_revision, rejected_error = excluded.rejected_error,
           last_error = excluded.last_error, last_contact = excluded.last_contact, state = excluded.state`,
      )
      .run(record);
  }

  activeAlarms(slot?: string): AlarmRecord[] {
    const rows = slot
      ? this.db
          .prepare<[string], AlarmRow>(
            'SELECT * FROM alarms WHERE cleared_at IS NULL AND slot = ? ORDER BY raised_at',
          )
          .all(slot)
      : this.db
          .prepare<[], AlarmRow>('SELECT * FROM alarms WHERE cleared_at IS NULL ORDER BY raised_at')
          .all();
    return rows.map(alarmOf);
  }

  history(limit: number): AlarmRecord[] {
    return this.db
      .prepare<[number], AlarmRow>(
        'SELECT * FROM alarms WHERE cleared_at IS NOT NULL ORDER BY cleared_at DESC LIMIT ?',
      )
      .all(limit)
      .map(alarmOf);
  }

  /** Answers the new alarm's id. */
  raise(alarm: NewAlarm): number {
    return Number(
      this.db
        .prepare(
          `INSERT INTO alarms (slot, code, name, severity, target_set, server, text, raised_at)
         VALUES (@slot, @code, @name, @severity, @targetSet, @server, @text, @raisedAt)`,
        )
        .run(alarm).lastInsertRowid,
    );
  }

  clear(id: number, clearedAt: string): void {
    this.db
      .prepare('UPDATE alarms SET cleared_at = ? WHERE id = ? AND cleared_at IS NULL')
      .run(clearedAt, id);
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    agentSyncRepository: AgentSyncRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('agentSyncRepository', new AgentSyncRepository(app.db));
  },
  { name: 'agent-sync-repository', dependencies: ['db'] },
);
