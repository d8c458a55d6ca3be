/**
 * Part 4 of issue 8: GET /api/target-sets with 32 Target Sets × 32 servers, under autocannon,
 * against a bare Fastify route in the same process answering the same JSON from memory: the same
 * bytes (`ratio`), and, for comparison, the same object serialized on every request.
 */
import { mkdirSync } from 'node:fs';
import { autocannon, type Cannon } from '../lib/autocannon.ts';
import { ADMIN_PASSWORD, startApiServer } from '../lib/api-process.ts';
import { login, seed32x32 } from '../lib/oam.ts';
import { PROFILE_DIR } from '../lib/results.ts';
import { median, round } from '../lib/stats.ts';
import type { PartContext } from './context.ts';

const HOST = '127.70.3.1';
const CONNECTIONS = 10;

export async function runApi(ctx: PartContext): Promise<Record<string, unknown>> {
  const profileDir = process.env.BENCH_PROFILE === '1' ? PROFILE_DIR : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const server = await startApiServer({ host: HOST, port: 18080, barePort: 18081, profileDir });
  try {
    const oam = await login(server.base, 'admin', ADMIN_PASSWORD);
    await seed32x32(oam, '127.70');
    const loaded = await server.driver.ask<{ bytes: number; status: number }>({
      op: 'snapshot',
      cookie: oam.cookie,
    });
    if (loaded.status !== 200)
      throw new Error(`snapshot of GET /api/target-sets: ${loaded.status}`);
    const same = await (await oam.get('/api/target-sets')).text();
    for (const path of ['/api/target-sets', '/api/target-sets-object']) {
      const bareBody = await (await fetch(`${server.bare}${path}`)).text();
      if (JSON.stringify(JSON.parse(same)) !== JSON.stringify(JSON.parse(bareBody)))
        throw new Error(`the bare route ${path} does not answer the same JSON`);
    }

    const seconds = ctx.quick ? 3 : 5;
    const rounds = ctx.quick ? 1 : 3;
    const apiUrl = `${server.base}/api/target-sets`;
    const bareUrl = `${server.bare}/api/target-sets`;
    const objectUrl = `${server.bare}/api/target-sets-object`;
    for (const url of [apiUrl, bareUrl, objectUrl])
      await autocannon(url, oam.cookie, 2, CONNECTIONS); // warm-up
    const api: Cannon[] = [];
    const bare: Cannon[] = [];
    const object: Cannon[] = [];
    for (let r = 0; r < rounds; r++) {
      bare.push(await autocannon(bareUrl, oam.cookie, seconds, CONNECTIONS));
      api.push(await autocannon(apiUrl, oam.cookie, seconds, CONNECTIONS));
      object.push(await autocannon(objectUrl, oam.cookie, seconds, CONNECTIONS));
      ctx.log(
        `api round ${r + 1}/${rounds}: API ${round(api.at(-1)!.rps)} req/s, bare ${round(bare.at(-1)!.rps)} req/s (the object serialized each time: ${round(object.at(-1)!.rps)})`,
      );
    }
    const bad = [...api, ...bare, ...object].reduce((a, c) => a + c.non2xx + c.errors, 0);
    if (bad > 0) throw new Error(`${bad} requests failed or were not 2xx`);
    const apiRps = median(api.map((c) => c.rps));
    const bareRps = median(bare.map((c) => c.rps));
    const bareObjectRps = median(object.map((c) => c.rps));
    return {
      apiRps: round(apiRps, 0),
      bareRps: round(bareRps, 0),
      ratio: round(apiRps / bareRps, 3),
      bareObjectRps: round(bareObjectRps, 0),
      ratioToSerializingRoute: round(apiRps / bareObjectRps, 3),
      apiP99Ms: round(median(api.map((c) => c.p99Ms)), 1),
      bareP99Ms: round(median(bare.map((c) => c.p99Ms)), 1),
      responseBytes: Buffer.byteLength(same),
      method: `autocannon ${CONNECTIONS} connections, ${seconds} s per run after a 2 s warm-up of each, ${rounds} alternating rounds (median); the API as a process of its own (the real app on a temporary SQLite file, agent sync off); in the same process a bare Fastify route answering the same JSON from memory as bytes serialized once (bareRps, the ratio's denominator) and one serializing the same object on every request (bareObjectRps); admin session cookie on every request`,
      rounds: {
        api: api.map((c) => round(c.rps, 0)),
        bare: bare.map((c) => round(c.rps, 0)),
        bareObject: object.map((c) => round(c.rps, 0)),
      },
    };
  } finally {
    await server.stop();
  }
}
