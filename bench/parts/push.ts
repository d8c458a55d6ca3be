/**
 * Part 3 of issue 8: 100 commits through the OAM API with four agents (A1, A2, B1, B2) running;
 * for each, the time from the commit's 2xx to the moment the last agent runs the new revision
 * (each agent's /v1/health polled without pause).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_TOKEN } from '../lib/config.ts';
import { onCleanup } from '../lib/cleanup.ts';
import { login, ok } from '../lib/oam.ts';
import { ROOT } from '../lib/results.ts';
import { percentile, round, sleep, until } from '../lib/stats.ts';
import type { PartContext } from './context.ts';

const P = '127.70';
const OAM = { host: `${P}.0.1`, port: 18180 };
const AGENTS = { A1: `${P}.0.11`, A2: `${P}.0.12`, B1: `${P}.0.13`, B2: `${P}.0.14` } as const;
const SERVERS = [`${P}.1.1`, `${P}.1.2`, `${P}.1.3`];
const PASSWORD = 'bench-admin-password';

function start(command: string[], env: Record<string, string>, log: (l: string) => void) {
  const child = spawn(process.execPath, command, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
  });
  child.stdout!.resume();
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d).slice(-2000)));
  child.once('exit', (code, signal) => {
    if (signal !== 'SIGKILL' && signal !== 'SIGTERM' && code !== 0)
      log(`push: ${command[command.length - 1]} exited (${code ?? signal}): ${stderr.trim()}`);
  });
  return child;
}

export async function runPush(ctx: PartContext): Promise<Record<string, unknown>> {
  const commits = ctx.quick ? 20 : 100;
  const dir = mkdtempSync(join(tmpdir(), 'ipfe-bench-push-'));
  const children: ChildProcess[] = [];
  const remove = onCleanup('push processes and folder', () => {
    for (const child of children)
      try {
        if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    rmSync(dir, { recursive: true, force: true });
  });
  try {
    const oamProcess = start(
      ['--import', 'tsx', join(ROOT, 'apps/api/src/server.ts')],
      {
        HOST: OAM.host,
        PORT: String(OAM.port),
        IPFE_DATA_DIR: join(dir, 'oam'),
        IPFE_ADMIN_PASSWORD: PASSWORD,
        IPFE_AGENT_TOKEN: BENCH_TOKEN,
        LOG_LEVEL: 'info',
      },
      ctx.log,
    );
    children.push(oamProcess);
    // The OAM logs each agent's ACK ("agent applied revision", with its time in ms): that is the
    // moment the clock stops, read without adding any load.
    const acks = new Map<number, Map<string, number>>();
    createInterface({ input: oamProcess.stdout! }).on('line', (line) => {
      if (!line.includes('agent applied revision')) return;
      try {
        const entry = JSON.parse(line) as { time: number; slot: string; revision: number };
        if (!acks.has(entry.revision)) acks.set(entry.revision, new Map());
        acks.get(entry.revision)!.set(entry.slot, entry.time);
      } catch {
        // not a log line of the OAM's
      }
    });
    for (const [slot, address] of Object.entries(AGENTS))
      children.push(
        start(
          [
            join(ROOT, 'apps/agent/bin/ipfe-agent.js'),
            '--slot',
            slot,
            '--control',
            `${address}:8701`,
            '--state-dir',
            join(dir, slot),
          ],
          { IPFE_AGENT_TOKEN: BENCH_TOKEN },
          ctx.log,
        ),
      );
    for (const address of SERVERS)
      children.push(
        start(
          [
            join(ROOT, 'packages/reporter/bin/ipfe-reporter.js'),
            '--listen',
            `${address}:9675`,
            '--mps-capacity',
            '1000',
            '--connection-capacity',
            '1000',
          ],
          {},
          ctx.log,
        ),
      );
    const base = `http://${OAM.host}:${OAM.port}`;
    await until('the OAM', async () => (await fetch(`${base}/api/health`)).ok, 60_000, 250);
    const health = async (address: string) => {
      const r = await fetch(`http://${address}:8701/v1/health`);
      return ((await r.json()) as { revision: number | null }).revision;
    };
    await until(
      'the four agents',
      async () => (await Promise.all(Object.values(AGENTS).map(health))).length === 4,
      60_000,
      250,
    );

    const oam = await login(base, 'admin', PASSWORD);
    await ok(
      oam.edit('/api/options', {
        ipfe: Object.fromEntries(Object.entries(AGENTS).map(([s, address]) => [s, { address }])),
      }),
      'options',
    );
    await ok(oam.post('/api/xsi-networks', { name: 'xsi', cidr: `${P}.0.0/16` }), 'xsi');
    for (const [i, address] of SERVERS.entries())
      await ok(
        oam.post('/api/app-servers', { name: `mp${i + 1}`, addresses: [address] }),
        'server',
      );
    const targetSet = (weight: number, activeIpfe: 'A1' | 'B1', tsa: string) => ({
      family: 'ipv4',
      algorithm: 'hash',
      primary: { address: tsa, activeIpfe },
      servers: SERVERS.map((address, i) => ({ address, weight: i === 0 ? weight : 100 })),
    });
    await ok(oam.post('/api/target-sets', targetSet(100, 'A1', `${P}.2.1`)), 'target set 1');
    const last = await ok(
      oam.post('/api/target-sets', targetSet(100, 'B1', `${P}.2.2`)),
      'target set 2',
    );
    const seeded = Number(last.headers.get('x-ipfe-revision'));
    await until(
      `every agent at revision ${seeded}`,
      async () => (await Promise.all(Object.values(AGENTS).map(health))).every((r) => r === seeded),
      60_000,
      100,
    );

    const latencies: number[] = [];
    const perAgent: Record<string, number[]> = Object.fromEntries(
      Object.keys(AGENTS).map((s) => [s, []]),
    );
    for (let i = 0; i < commits; i++) {
      const body = targetSet(i % 2 === 0 ? 101 : 100, 'A1', `${P}.2.1`);
      // The ETag read is outside the timing: the clock starts at the commit's 2xx.
      const current = await oam.get('/api/target-sets/1');
      await current.arrayBuffer();
      const response = await fetch(`${base}/api/target-sets/1`, {
        method: 'PUT',
        headers: {
          cookie: oam.cookie,
          'x-csrf-token': oam.csrfToken,
          'content-type': 'application/json',
          'if-match': current.headers.get('etag') ?? '',
        },
        body: JSON.stringify(body),
      });
      const committedAt = Date.now();
      if (!response.ok)
        throw new Error(`commit ${i + 1}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      const revision = Number(response.headers.get('x-ipfe-revision'));
      const acked = await until(
        `four ACKs of revision ${revision}`,
        () => (acks.get(revision)?.size === 4 ? acks.get(revision)! : undefined),
        10_000,
        2,
      );
      // And each agent does run it: its health names the revision.
      const running = await Promise.all(Object.values(AGENTS).map(health));
      if (!running.every((r) => r !== null && r >= revision))
        throw new Error(`commit ${i + 1}: agents run ${running.join(', ')}, not ${revision}`);
      for (const [slot, at] of acked) perAgent[slot]!.push(at - committedAt);
      latencies.push(Math.max(...acked.values()) - committedAt);
      await sleep(20);
    }
    ctx.log(
      `push: ${commits} commits, p50 ${round(percentile(latencies, 50), 1)} ms, p99 ${round(percentile(latencies, 99), 1)} ms`,
    );
    return {
      p50Ms: round(percentile(latencies, 50), 1),
      p99Ms: round(percentile(latencies, 99), 1),
      commits,
      agents: 4,
      maxMs: round(Math.max(...latencies), 1),
      perAgentP50Ms: Object.fromEntries(
        Object.entries(perAgent).map(([s, v]) => [s, round(percentile(v, 50), 1)]),
      ),
      ackedBefore2xx: latencies.filter((l) => l <= 0).length,
      method:
        'the OAM server and four agents (user-space data path) as processes of their own on loopback 127.70.0.x, three reporters; each commit is a PUT of Target Set 1 (a weight toggled 100/101, the ETag read beforehand); the clock starts when the 2xx arrives at the client (Date.now) and stops at the last of the four ACKs as the OAM logs them ("agent applied revision", pino time in ms); then every agent’s GET /v1/health must name the revision; 20 ms between commits',
    };
  } finally {
    remove();
  }
}
