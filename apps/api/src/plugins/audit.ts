import fp from 'fastify-plugin';
import { REVISION_HEADER, UNCHANGED_HEADER } from '../http/commit-headers.ts';

const CHANGES = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** "login", "login-failed", "logout", or the method: what an audit entry records. */
function actionOf(method: string, path: string, status: number): string {
  if (path === '/api/session') {
    if (method === 'POST') return status === 200 ? 'login' : 'login-failed';
    if (method === 'DELETE') return 'logout';
  }
  return method.toLowerCase();
}

/**
 * The audit log: every login, failed login and change (attempted or done) under /api/, with who,
 * when, from where and the outcome. A failed login records the name that was tried.
 */
export default fp(
  async (app) => {
    app.addHook('onResponse', async (request, reply) => {
      const path = request.url.split('?')[0] ?? request.url;
      if (!CHANGES.has(request.method) || !path.startsWith('/api/')) return;
      const action = actionOf(request.method, path, reply.statusCode);
      const tried = (request.body as { username?: unknown } | undefined)?.username;
      const user =
        request.user?.name ??
        (path === '/api/session' && typeof tried === 'string' ? tried.slice(0, 64) : null);
      const revision = reply.getHeader(REVISION_HEADER);
      const unchanged = reply.getHeader(UNCHANGED_HEADER) !== undefined;
      await app.auditRepository.record({
        user,
        address: request.ip,
        action,
        target: path,
        status: reply.statusCode,
        detail:
          revision !== undefined ? `revision ${String(revision)}` : unchanged ? 'no change' : null,
      });
    });
  },
  { name: 'audit', dependencies: ['audit-repository'] },
);
