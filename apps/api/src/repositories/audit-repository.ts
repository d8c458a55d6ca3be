import type { AuditEntry } from '@ipfe/schema';
import fp from 'fastify-plugin';
import type { Db } from '../store/store.ts';

export class AuditRepository {
  constructor(private readonly db: Db) {}

  async record(entry: Omit<AuditEntry, 'id' | 'at'>): Promise<void> {
    await this.db
      .insertInto('audit')
      .values({
        at: new Date().toISOString(),
        user: entry.user,
        address: entry.address,
        action: entry.action,
        target: entry.target,
        status: entry.status,
        detail: entry.detail,
      })
      .execute();
  }

  async list(limit: number, before?: number): Promise<AuditEntry[]> {
    let query = this.db.selectFrom('audit').selectAll();
    if (before !== undefined) query = query.where('id', '<', before);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    auditRepository: AuditRepository;
  }
}

export default fp(
  async (app) => {
    app.decorate('auditRepository', new AuditRepository(app.store.db));
  },
  { name: 'audit-repository', dependencies: ['db'] },
);
