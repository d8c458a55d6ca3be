import type Database from 'better-sqlite3';
import type { AuditEntry } from '@ipfe/schema';
import fp from 'fastify-plugin';

export class AuditRepository {
  constructor(private readonly db: Database.Database) {}

  record(entry: Omit<AuditEntry, 'id' | 'at'>): void {
    this.db
      .prepare(
        `INSERT INTO audit (at, user, address, action, target, status, detail)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        new Date().toISOString(),
        entry.user,
        entry.address,
        entry.action,
        entry.target,
        entry.status,
        entry.detail,
      );
  }

  list(limit: number, before?: number): AuditEntry[] {
    return this.db
      .prepare<[number, number], AuditEntry>(
        'SELECT * FROM audit WHERE id < ? ORDER BY id DESC LIMIT ?',
      )
      .all(before ?? Number.MAX_SAFE_INTEGER, limit);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    auditRepository: AuditRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('auditRepository', new AuditRepository(app.db));
  },
  { name: 'audit-repository', dependencies: ['db'] },
);
