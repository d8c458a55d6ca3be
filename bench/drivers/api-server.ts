/**
 * The OAM API in a process of its own for the API and GUI benchmarks (the real app, a temporary
 * SQLite file, user admin), and beside it bare Fastify routes answering GET /api/target-sets
 * from memory: the same bytes, serialized once (the ceiling the API is measured against), and at
 * /api/target-sets-object the same object, serialized on every request.
 * `node api-server.ts HOST PORT BARE_PORT [WEB_ROOT]`; the line `{"op":"snapshot","cookie":…}` on
 * stdin loads what the bare routes answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Fastify from 'fastify';
import { buildApp } from '../../apps/api/src/app.ts';
import { ensureAdmin } from '../../apps/api/src/bootstrap.ts';

const [host, port, barePort, webRoot] = process.argv.slice(2);
const password = process.env.BENCH_ADMIN_PASSWORD ?? 'bench-admin-password';
const dir = mkdtempSync(join(tmpdir(), 'ipfe-bench-api-'));
const app = await buildApp({
  databaseFile: join(dir, 'ipfe-oam.sqlite'),
  sessionSecret: 'bench-session-secret-of-at-least-32-characters',
  agentSync: { enabled: false },
  webRoot: webRoot || undefined,
});
await ensureAdmin(app.usersRepository, dir, password, () => {});
await app.listen({ host, port: Number(port) });

let snapshot: unknown = { items: [] };
let snapshotBytes: Buffer = Buffer.from('{"items":[]}');
const bare = Fastify();
bare.get('/api/target-sets', async (_request, reply) =>
  reply.type('application/json; charset=utf-8').send(snapshotBytes),
);
bare.get('/api/target-sets-object', async () => snapshot);
await bare.listen({ host, port: Number(barePort) });

const stop = async () => {
  await Promise.allSettled([app.close(), bare.close()]);
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
createInterface({ input: process.stdin }).on('line', async (line) => {
  const command = JSON.parse(line) as { op: string; cookie?: string };
  if (command.op === 'snapshot') {
    const response = await app.inject({
      method: 'GET',
      url: '/api/target-sets',
      headers: { cookie: command.cookie ?? '' },
    });
    snapshot = response.json();
    snapshotBytes = response.rawPayload;
    console.log(JSON.stringify({ bytes: response.body.length, status: response.statusCode }));
  } else if (command.op === 'quit') {
    await stop();
  }
});
console.log(JSON.stringify({ ready: true }));
