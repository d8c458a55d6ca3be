/**
 * Issue 25 item 7: the OAM on PostgreSQL, against SQLite and through failures.
 *
 * 1. Engines: commits and `GET /api/target-sets` per second, one OAM process on SQLite and one on
 *    a plain PostgreSQL 15 (durable defaults), the same 32 × 32 configuration, alternating rounds.
 * 2. Leader takeover: three OAMs on one PostgreSQL database; the leader SIGKILLed; time until
 *    another one's /api/health says `leader` (polled every 20 ms); the killed one restarted. A real
 *    agent stopped or started before each kill makes the leaders raise and clear alarms, and a
 *    real snmptrapd counts their traps (duplicates, losses); a writer commits through all three.
 * 3. Store failover: two OAMs given a pg_auto_failover pair; a writer committing continuously;
 *    the primary node SIGKILLed; time from the kill to the first write answered 2xx after the
 *    503s; the old primary restarted and the pair settled before the next trial.
 * Every revision answered 2xx must then be in GET /api/revisions, with what was written.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlarmsView, ConfigDocument, HealthView, RevisionLog } from '@ipfe/schema';
import {
  startAutoFailoverPair,
  type AutoFailoverPair,
} from '../../apps/api/test/pg-auto-failover.ts';
import { startSnmptrapd, type Snmptrapd } from '../../apps/api/test/snmptrapd.ts';
import { autocannon, type Cannon } from '../lib/autocannon.ts';
import { onCleanup } from '../lib/cleanup.ts';
import {
  OAM_PASSWORD,
  startOam,
  startPostgres,
  type OamOptions,
  type OamProcess,
} from '../lib/cluster.ts';
import { BENCH_TOKEN } from '../lib/config.ts';
import { login, ok, seed32x32, type Oam } from '../lib/oam.ts';
import { ROOT } from '../lib/results.ts';
import { median, percentile, round, sleep, until } from '../lib/stats.ts';
import type { PartContext } from './context.ts';

const ENGINES = {
  sqlite: { host: '127.70.5.1', port: 18380 },
  pg: { host: '127.70.5.2', port: 18381 },
};
const TAKEOVER_HOSTS = ['127.70.6.1', '127.70.6.2', '127.70.6.3'];
const TAKEOVER_PORT = 18480;
const AGENT = '127.70.6.11';
const TRAPD = { host: '127.70.6.9', port: 10163 };
const FAILOVER_HOSTS = ['127.70.7.1', '127.70.7.2'];
const FAILOVER_PORT = 18580;
const CONNECTIONS = 10;
const WRITERS = 4;
const AGENT_BIN = join(ROOT, 'apps/agent/bin/ipfe-agent.js');

const loadavg = () => round(os.loadavg()[0]!, 2);
const stats = (samples: number[]) => ({
  p50: round(percentile(samples, 50), 0),
  p99: round(percentile(samples, 99), 0),
  max: round(Math.max(...samples), 0),
  trials: samples.length,
  samples: samples.map((s) => round(s, 0)),
});

/** os.tmpdir() is read when called: an imported starter makes its folder inside `dir`. */
function inside<T>(dir: string, start: () => Promise<T>): Promise<T> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return start(); // its mkdtemp runs before its first await
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

interface CommitRun {
  perSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 2xx (none expected), by status. */
  failed: Record<string, number>;
  /** The first of them: what and the body. */
  firstFailure: string | null;
}

/**
 * `writers` clients for `seconds`, each inserting an XSI network of its own and deleting it again
 * (If-Match: the insert's ETag), without pause: every 2xx answer is a revision.
 */
async function commitLoad(oam: Oam, seconds: number, writers: number): Promise<CommitRun> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const latencies: number[] = [];
  const failed: Record<string, number> = {};
  let firstFailure: string | null = null;
  const auth = { cookie: oam.cookie, 'x-csrf-token': oam.csrfToken };
  const send = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ) => {
    const at = performance.now();
    const answer = await fetch(`${oam.base}${path}`, {
      method,
      headers: { ...auth, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await answer.text();
    if (answer.ok) latencies.push(performance.now() - at);
    else {
      failed[answer.status] = (failed[answer.status] ?? 0) + 1;
      firstFailure ??= `${method} ${path}: ${answer.status} ${text.slice(0, 300)}`;
    }
    return answer;
  };
  await Promise.all(
    Array.from({ length: writers }, async (_, k) => {
      const path = `/api/xsi-networks/w${k}`;
      while (performance.now() < deadline) {
        const made = await send(
          'POST',
          '/api/xsi-networks',
          { 'content-type': 'application/json' },
          { name: `w${k}`, cidr: `10.${200 + k}.0.0/24` },
        );
        let etag = made.headers.get('etag');
        if (!made.ok) {
          // Perhaps there from before: read it for its ETag.
          const there = await fetch(`${oam.base}${path}`, { headers: { cookie: oam.cookie } });
          await there.arrayBuffer();
          if (!there.ok) continue;
          etag = there.headers.get('etag');
        }
        await send('DELETE', path, { 'if-match': etag ?? '' });
      }
    }),
  );
  return {
    perSec: latencies.length / ((performance.now() - started) / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    failed,
    firstFailure,
  };
}

interface Write {
  sentAt: number;
  answeredAt: number;
  /** 0: no answer (refused, reset, timed out). */
  status: number;
  value: number;
  revision?: number;
}

/**
 * One client committing without end through `bases` in turn: PUT /api/options with If-Match
 * (the last answer's ETag; after a failure, a fresh GET), each with a monitoring port of its own
 * so that every revision's content says which write made it.
 */
function startWriter(bases: string[], session: Oam, pauseMs: number, failPauseMs: number) {
  const writes: Write[] = [];
  let stopped = false;
  const auth = { cookie: session.cookie, 'x-csrf-token': session.csrfToken };
  const run = async () => {
    let etag: string | null = null;
    let body: Record<string, unknown> = {};
    let n = 0;
    let turn = 0;
    while (!stopped) {
      const base = bases[turn++ % bases.length]!;
      let good = false;
      try {
        if (etag === null) {
          const current = await fetch(`${base}/api/options`, {
            headers: { cookie: session.cookie },
            signal: AbortSignal.timeout(15_000),
          });
          if (!current.ok) {
            await current.arrayBuffer();
            throw new Error(`GET /api/options: ${current.status}`);
          }
          etag = current.headers.get('etag');
          body = (await current.json()) as Record<string, unknown>;
        }
        const value = 20_000 + (n++ % 40_000);
        const write: Write = { sentAt: performance.now(), answeredAt: 0, status: 0, value };
        writes.push(write);
        try {
          const answer = await fetch(`${base}/api/options`, {
            method: 'PUT',
            headers: { ...auth, 'content-type': 'application/json', 'if-match': etag ?? '' },
            body: JSON.stringify({ ...body, monitoringPort: value }),
            signal: AbortSignal.timeout(15_000),
          });
          write.answeredAt = performance.now();
          write.status = answer.status;
          await answer.arrayBuffer();
          if (answer.ok) {
            write.revision = Number(answer.headers.get('x-ipfe-revision'));
            etag = answer.headers.get('etag');
            body = { ...body, monitoringPort: value };
            good = true;
          } else etag = null;
        } catch (err) {
          write.answeredAt = performance.now();
          throw err;
        }
      } catch {
        etag = null;
      }
      await sleep(good ? pauseMs : failPauseMs);
    }
  };
  const done = run();
  return {
    writes,
    okSince: (at: number) =>
      writes.filter((w) => w.status >= 200 && w.status < 300 && w.sentAt >= at).length,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** Every 2xx write's revision in the log, with its content; the log's numbers without gaps or twins. */
async function checkRevisions(oam: Oam, writes: Write[], when: (at: number) => string = () => '') {
  const numbers: number[] = [];
  let before: number | undefined;
  for (;;) {
    const page = (await (
      await ok(
        oam.get(`/api/revisions?limit=1000${before === undefined ? '' : `&before=${before}`}`),
        'revisions',
      )
    ).json()) as RevisionLog;
    numbers.push(...page.items.map((r) => r.number));
    if (page.items.length < 1000) break;
    before = page.items.at(-1)!.number;
  }
  const inLog = new Set(numbers);
  const answered = writes.filter((w) => w.status >= 200 && w.status < 300);
  const answeredNumbers = new Set(answered.map((w) => w.revision));
  const missing = answered.filter((w) => !inLog.has(w.revision!));
  // Content: the revision holds the monitoring port its write sent (4 reads at a time).
  const mismatched: Write[] = [];
  const heldInstead = new Map<Write, number>();
  const queue = answered.filter((w) => inLog.has(w.revision!));
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let w = queue.pop(); w; w = queue.pop()) {
        const doc = (await (
          await ok(oam.get(`/api/revisions/${w.revision}`), 'revision')
        ).json()) as ConfigDocument;
        if (doc.config.options.monitoringPort !== w.value) {
          mismatched.push(w);
          heldInstead.set(w, doc.config.options.monitoringPort);
        }
      }
    }),
  );
  const max = Math.max(...numbers);
  return {
    answered: answered.length,
    missing: missing.length,
    contentMismatch: mismatched.length,
    lost: missing.length + mismatched.length,
    answeredTwice: answered.length - answeredNumbers.size,
    revisionsInLog: numbers.length,
    duplicatesInLog: numbers.length - inLog.size,
    gapsInLog: numbers.length > 0 ? max - Math.min(...numbers) + 1 - inLog.size : 0,
    firstInLog: numbers.length > 0 ? Math.min(...numbers) : null,
    notAnswered: writes.length - answered.length,
    statuses: Object.fromEntries(
      [...new Set(writes.map((w) => w.status))].map((s) => [
        s,
        writes.filter((w) => w.status === s).length,
      ]),
    ),
    // Each lost write: when it was sent and answered (against the trials' events), and the write
    // whose content its revision holds instead.
    examples: [...missing, ...mismatched].slice(0, 5).map((w) => {
      const instead = heldInstead.get(w);
      const other = writes.find((o) => o.value === instead && o !== w);
      const timed = (x: Write) => ({
        revision: x.revision,
        status: x.status,
        monitoringPort: x.value,
        sent: when(x.sentAt),
        answered: when(x.answeredAt),
        tookMs: round(x.answeredAt - x.sentAt, 0),
      });
      return { ...timed(w), heldInstead: other ? timed(other) : (instead ?? 'missing') };
    }),
  };
}

// ---------------------------------------------------------------- 1. SQLite against PostgreSQL

async function engines(ctx: PartContext, dir: string, postgresUrl: string) {
  const seconds = ctx.quick ? 3 : 5;
  const rounds = ctx.quick ? 1 : 3;
  const oams: Record<'sqlite' | 'pg', OamProcess> = {
    sqlite: await startOam({
      name: 'oam on sqlite',
      ...ENGINES.sqlite,
      dataDir: join(dir, 'sqlite'),
      log: ctx.log,
    }),
    pg: await startOam({
      name: 'oam on postgres',
      ...ENGINES.pg,
      dataDir: join(dir, 'pg'),
      databaseUrl: postgresUrl,
      log: ctx.log,
    }),
  };
  try {
    const sessions = {} as Record<'sqlite' | 'pg', Oam>;
    for (const engine of ['sqlite', 'pg'] as const) {
      const health = await oams[engine].health();
      if (health?.store !== (engine === 'pg' ? 'postgres' : 'sqlite'))
        throw new Error(`${engine}: the OAM says store ${health?.store}`);
      sessions[engine] = await login(oams[engine].base, 'admin', OAM_PASSWORD);
      await seed32x32(sessions[engine], '127.70');
    }
    const a = await (await sessions.sqlite.get('/api/target-sets')).text();
    const b = await (await sessions.pg.get('/api/target-sets')).text();
    if (a !== b) ctx.log('ha engines: the two OAMs do not answer GET /api/target-sets alike');
    for (const engine of ['sqlite', 'pg'] as const) {
      await commitLoad(sessions[engine], 2, WRITERS); // warm-up
      await autocannon(
        `${oams[engine].base}/api/target-sets`,
        sessions[engine].cookie,
        2,
        CONNECTIONS,
      );
    }
    const runs = () => ({ sqlite: [] as CommitRun[], pg: [] as CommitRun[] });
    const commits = runs(); // WRITERS clients
    const single = runs(); // one client
    const reads = { sqlite: [] as Cannon[], pg: [] as Cannon[] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['sqlite', 'pg'] as const) : (['pg', 'sqlite'] as const);
      for (const engine of order)
        commits[engine].push(await commitLoad(sessions[engine], seconds, WRITERS));
      for (const engine of order)
        single[engine].push(await commitLoad(sessions[engine], seconds, 1));
      for (const engine of order)
        reads[engine].push(
          await autocannon(
            `${oams[engine].base}/api/target-sets`,
            sessions[engine].cookie,
            seconds,
            CONNECTIONS,
          ),
        );
      const last = (runs: CommitRun[]) => round(runs.at(-1)!.perSec);
      ctx.log(
        `ha engines round ${r + 1}/${rounds}: commits/s (${WRITERS} clients) SQLite ${last(commits.sqlite)}, PostgreSQL ${last(commits.pg)}; (1 client) SQLite ${last(single.sqlite)}, PostgreSQL ${last(single.pg)}; reads/s SQLite ${round(reads.sqlite.at(-1)!.rps)}, PostgreSQL ${round(reads.pg.at(-1)!.rps)}`,
      );
    }
    const bad = [...reads.sqlite, ...reads.pg].reduce((n, c) => n + c.non2xx + c.errors, 0);
    if (bad > 0) throw new Error(`${bad} reads failed or were not 2xx`);
    const perSec = (runs: CommitRun[]) => median(runs.map((c) => c.perSec));
    const latency = (runs: CommitRun[]) => ({
      p50: round(median(runs.map((c) => c.p50Ms)), 1),
      p99: round(median(runs.map((c) => c.p99Ms)), 1),
    });
    const failures = (runs: CommitRun[]) => {
      const all: Record<string, number> = {};
      for (const run of runs)
        for (const [status, n] of Object.entries(run.failed)) all[status] = (all[status] ?? 0) + n;
      return all;
    };
    const sqliteReads = median(reads.sqlite.map((c) => c.rps));
    const pgReads = median(reads.pg.map((c) => c.rps));
    return {
      sqliteCommitsPerSec: round(perSec(commits.sqlite), 1),
      pgCommitsPerSec: round(perSec(commits.pg), 1),
      pgCommitRatio: round(perSec(commits.pg) / perSec(commits.sqlite), 3),
      sqliteReadsPerSec: round(sqliteReads, 0),
      pgReadsPerSec: round(pgReads, 0),
      pgReadRatio: round(pgReads / sqliteReads, 3),
      oneClient: {
        sqliteCommitsPerSec: round(perSec(single.sqlite), 1),
        pgCommitsPerSec: round(perSec(single.pg), 1),
        pgCommitRatio: round(perSec(single.pg) / perSec(single.sqlite), 3),
        commitMs: { sqlite: latency(single.sqlite), pg: latency(single.pg) },
      },
      commitMs: { sqlite: latency(commits.sqlite), pg: latency(commits.pg) },
      commitFailure: [...commits.sqlite, ...single.sqlite, ...commits.pg, ...single.pg]
        .map((c) => c.firstFailure)
        .filter(Boolean)
        .slice(0, 3),
      commitsNot2xx: {
        sqlite: failures([...commits.sqlite, ...single.sqlite]),
        pg: failures([...commits.pg, ...single.pg]),
      },
      readAnswer: { bytes: Buffer.byteLength(a), sameOnBoth: a === b },
      readP99Ms: {
        sqlite: round(median(reads.sqlite.map((c) => c.p99Ms)), 1),
        pg: round(median(reads.pg.map((c) => c.p99Ms)), 1),
      },
      engineRounds: {
        commitsPerSec: {
          sqlite: commits.sqlite.map((c) => round(c.perSec, 1)),
          pg: commits.pg.map((c) => round(c.perSec, 1)),
        },
        oneClientCommitsPerSec: {
          sqlite: single.sqlite.map((c) => round(c.perSec, 1)),
          pg: single.pg.map((c) => round(c.perSec, 1)),
        },
        readsPerSec: {
          sqlite: reads.sqlite.map((c) => round(c.rps, 0)),
          pg: reads.pg.map((c) => round(c.rps, 0)),
        },
      },
    };
  } finally {
    await Promise.all([oams.sqlite.stop(), oams.pg.stop()]);
  }
}

// ---------------------------------------------------------------- 2. leader takeover, traps

interface TrapCount {
  raised: number;
  cleared: number;
}

/** The traps snmptrapd received, by alarm id and kind. */
function trapsByAlarm(trapd: Snmptrapd) {
  const counts = new Map<number, TrapCount>();
  let other = 0;
  for (const trap of trapd.traps) {
    const oid = trap.varbinds['SNMPv2-MIB::snmpTrapOID.0'] ?? '';
    const id = /(\d+)$/.exec(trap.varbinds['IPFE-OAM-MIB::ipfeAlarmId.0'] ?? '')?.[1];
    const kind = oid.endsWith('ipfeAlarmRaised')
      ? 'raised'
      : oid.endsWith('ipfeAlarmCleared')
        ? 'cleared'
        : null;
    if (!kind || id === undefined) {
      other++;
      continue;
    }
    const count = counts.get(Number(id)) ?? { raised: 0, cleared: 0 };
    count[kind]++;
    counts.set(Number(id), count);
  }
  return { counts, other };
}

/** Each alarm of the log against its traps: one when raised, one more when cleared. */
async function compareTraps(oam: Oam, trapd: Snmptrapd) {
  const view = (await (await ok(oam.get('/api/alarms?limit=5000'), 'alarms')).json()) as AlarmsView;
  const alarms = [...view.active, ...view.history];
  const { counts, other } = trapsByAlarm(trapd);
  let duplicates = 0;
  let lost = 0;
  const lostOf: { id: number; kind: string }[] = [];
  const duplicatesOf: { id: number; kind: string; copies: number }[] = [];
  for (const alarm of alarms) {
    const count = counts.get(alarm.id) ?? { raised: 0, cleared: 0 };
    const expected = { raised: 1, cleared: alarm.clearedAt === null ? 0 : 1 };
    for (const kind of ['raised', 'cleared'] as const) {
      if (count[kind] > 1) {
        duplicates += count[kind] - 1;
        duplicatesOf.push({ id: alarm.id, kind, copies: count[kind] });
      }
      if (count[kind] === 0 && expected[kind] === 1) {
        lost++;
        lostOf.push({ id: alarm.id, kind });
      }
    }
  }
  const known = new Set(alarms.map((a) => a.id));
  return {
    alarms: alarms.length,
    clearedAlarms: alarms.filter((a) => a.clearedAt !== null).length,
    traps: trapd.traps.length,
    duplicates,
    lost,
    trapsOfAlarmsNotInTheLog: [...counts.keys()].filter((id) => !known.has(id)).length,
    otherTraps: other,
    duplicatesOf: duplicatesOf.slice(0, 10),
    lostOf: lostOf.slice(0, 10),
  };
}

async function takeover(ctx: PartContext, dir: string, postgresUrl: string) {
  const trials = ctx.quick ? 3 : 20;
  let trapd: Snmptrapd | null = null;
  let trapdStopped = false;
  const stopTrapd = onCleanup('snmptrapd', () => {
    if (!trapdStopped) void trapd?.stop();
  });
  let agent: ChildProcess | null = null;
  const stopAgent = () => {
    try {
      if (agent && agent.exitCode === null && agent.signalCode === null && agent.pid)
        process.kill(-agent.pid, 'SIGKILL');
    } catch {
      // gone
    }
    agent = null;
  };
  const removeAgent = onCleanup('agent', stopAgent);
  const startAgent = () => {
    agent = spawn(
      process.execPath,
      [AGENT_BIN, '--slot', 'A1', '--control', `${AGENT}:8701`, '--state-dir', join(dir, 'agent')],
      {
        cwd: ROOT,
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, IPFE_AGENT_TOKEN: BENCH_TOKEN, LOG_LEVEL: 'warn' },
      },
    );
  };
  const options = (i: number): OamOptions => ({
    name: `oam ${i + 1} (takeover)`,
    host: TAKEOVER_HOSTS[i]!,
    port: TAKEOVER_PORT,
    dataDir: join(dir, `takeover-oam${i + 1}`),
    databaseUrl: postgresUrl,
    env: {
      IPFE_AGENT_TOKEN: BENCH_TOKEN,
      IPFE_STATUS_INTERVAL_MS: '200',
      IPFE_AGENT_START_GRACE_MS: '0',
    },
    log: ctx.log,
  });
  const oams: OamProcess[] = [];
  let writer: ReturnType<typeof startWriter> | null = null;
  try {
    trapd = await inside(dir, () =>
      startSnmptrapd(`udp:${TRAPD.host}:${TRAPD.port}`, ['authCommunity log ipfe-traps']),
    );
    oams.push(await startOam(options(0)));
    await until('OAM 1 to lead', async () => (await oams[0]!.health())?.role === 'leader', 30_000);
    oams.push(...(await Promise.all([startOam(options(1)), startOam(options(2))])));
    const admin = await login(oams[0]!.base, 'admin', OAM_PASSWORD);
    await ok(
      admin.edit('/api/options/snmp-traps', {
        destinations: [{ ...TRAPD, version: 'v2c', community: 'ipfe-traps' }],
      }),
      'trap destination',
    );
    await ok(admin.edit('/api/options', { ipfe: { A1: { address: AGENT } } }), 'options');
    startAgent();
    const unreachable = async () =>
      (((await (await admin.get('/api/alarms')).json()) as AlarmsView).active ?? []).some(
        (a) => a.slot === 'A1' && a.code === 5151,
      );
    await until('the agent reached', async () => !(await unreachable()), 60_000, 100);
    writer = startWriter(
      oams.map((o) => o.base),
      admin,
      50,
      20,
    );

    const leaderOf = async () => {
      const roles = await Promise.all(oams.map((o) => o.health()));
      const leaders = roles.flatMap((h, i) => (h?.role === 'leader' ? [i] : []));
      return leaders.length === 1 ? { i: leaders[0]! } : null; // (0 would read as not yet)
    };
    const samples: number[] = [];
    let twoLeaders = 0;
    let unsettled = 0;
    for (let t = 0; t < trials; t++) {
      const leader = (await until('exactly one leader', leaderOf, 30_000, 50)).i;
      // An alarm on its way at the kill: the agent stopped (5151 raised) or started (cleared).
      const agentUp = agent !== null;
      if (agentUp) stopAgent();
      else startAgent();
      await sleep((t * 149) % 500);
      const killedAt = performance.now();
      oams[leader]!.kill();
      const survivors = oams.filter((_, i) => i !== leader);
      let tookMs: number | null = null;
      while (tookMs === null) {
        const health = await Promise.all(survivors.map((o) => o.health(500)));
        const leading = health.filter((h: HealthView | null) => h?.role === 'leader').length;
        if (leading > 1) twoLeaders++;
        if (leading > 0) tookMs = performance.now() - killedAt;
        else if (performance.now() - killedAt > 30_000) throw new Error('no OAM took over in 30 s');
        else await sleep(20);
      }
      samples.push(tookMs);
      await oams[leader]!.exited;
      oams[leader] = await startOam(options(leader));
      // Settled: the alarm says what the agent is, and every alarm of the log has had its traps.
      const settled = await until(
        'the alarms and their traps',
        async () =>
          (await unreachable()) === agentUp && (await compareTraps(admin, trapd!)).lost === 0,
        20_000,
        200,
      ).catch(() => false);
      if (!settled) unsettled++;
      ctx.log(
        `ha takeover ${t + 1}/${trials}: ${round(tookMs, 0)} ms (OAM ${leader + 1} killed ${(t * 149) % 500} ms after the agent was ${agentUp ? 'stopped' : 'started'})${settled ? '' : '; traps not all in after 20 s'}`,
      );
    }
    await writer.stop();
    const writes = writer.writes;
    writer = null;
    // The last traps: every alarm has had its traps, or 20 s.
    await until(
      'every trap',
      async () => (await compareTraps(admin, trapd!)).lost === 0,
      20_000,
      200,
    ).catch(() => false);
    await sleep(1000);
    const traps = await compareTraps(admin, trapd);
    const revisions = await checkRevisions(admin, writes);
    return { samples, twoLeaders, unsettled, traps, revisions };
  } finally {
    await writer?.stop();
    await Promise.all(oams.map((o) => o.stop()));
    removeAgent();
    trapdStopped = true;
    await trapd?.stop();
    stopTrapd();
  }
}

// ---------------------------------------------------------------- 3. store failover

export async function storeFailover(ctx: PartContext, dir: string, trials = ctx.quick ? 2 : 10) {
  const events: { trial: number; kind: string; at: number }[] = [];
  const event = (trial: number, kind: string) =>
    events.push({ trial, kind, at: performance.now() });
  const when = (at: number) => {
    const last = events.filter((e) => e.at <= at).at(-1);
    return last
      ? `trial ${last.trial + 1}, ${Math.round(at - last.at)} ms after ${last.kind}`
      : 'before the trials';
  };
  let pair: AutoFailoverPair | null = null;
  let pairStopped = false;
  const stopPair = onCleanup('pg_auto_failover pair', () => {
    if (!pairStopped) void pair?.stop(); // its kills are synchronous
  });
  const oams: OamProcess[] = [];
  let writer: ReturnType<typeof startWriter> | null = null;
  try {
    const setupAt = performance.now();
    pair = await inside(dir, startAutoFailoverPair);
    ctx.log(
      `ha failover: pg_auto_failover pair up in ${round((performance.now() - setupAt) / 1000, 1)} s`,
    );
    for (const [i, host] of FAILOVER_HOSTS.entries())
      oams.push(
        await startOam({
          name: `oam ${i + 1} (failover)`,
          host,
          port: FAILOVER_PORT,
          dataDir: join(dir, `failover-oam${i + 1}`),
          databaseUrl: pair.url,
          log: ctx.log,
        }),
      );
    const admin = await login(oams[0]!.base, 'admin', OAM_PASSWORD);
    writer = startWriter([oams[0]!.base], admin, 10, 20);
    const samples: number[] = [];
    const trialInfo: Record<string, unknown>[] = [];
    for (let t = 0; t < trials; t++) {
      const since = performance.now();
      await until('writes going through', () => writer!.okSince(since) >= 5, 60_000, 50);
      const old = await until(
        'a primary',
        () => pair!.primary().then((p) => (p === null ? null : { p })),
        60_000,
        250,
      );
      const killedAt = performance.now();
      event(t, `the kill of node ${old.p}`);
      pair.kill(old.p);
      const writes = writer.writes;
      const recovered = await until(
        'a write answered 2xx after the outage',
        () => {
          const firstFailure = writes.find(
            (w) => w.answeredAt > killedAt && (w.status < 200 || w.status >= 300),
          );
          if (!firstFailure) return null;
          const back = writes.find(
            (w) => w.status >= 200 && w.status < 300 && w.sentAt >= firstFailure.answeredAt,
          );
          return back ? { firstFailure, back } : null;
        },
        180_000,
        20,
      );
      const ms = recovered.back.answeredAt - killedAt;
      event(t, 'the first 2xx after the outage');
      samples.push(ms);
      const during = writes.filter(
        (w) => w.sentAt >= killedAt && w.sentAt <= recovered.back.sentAt,
      );
      const info = {
        ms: round(ms, 0),
        firstFailureMs: round(recovered.firstFailure.answeredAt - killedAt, 0),
        okBeforeFirstFailure: writes.filter(
          (w) =>
            w.answeredAt > killedAt &&
            w.answeredAt < recovered.firstFailure.answeredAt &&
            w.status >= 200 &&
            w.status < 300,
        ).length,
        failed: during.filter((w) => w.status < 200 || w.status >= 300).length,
        statuses: [...new Set(during.map((w) => w.status))],
        slowestWriteMs: round(Math.max(...during.map((w) => w.answeredAt - w.sentAt)), 0),
      };
      trialInfo.push(info);
      await until(
        'the monitor to name the new primary',
        async () => (await pair!.primary()) === 1 - old.p,
        120_000,
        250,
      );
      event(t, `node ${1 - old.p} named primary`);
      pair.restart(old.p);
      event(t, `the restart of node ${old.p}`);
      await pair.settled(180_000);
      event(t, 'the pair settled');
      ctx.log(
        `ha failover ${t + 1}/${trials}: ${info.ms} ms (node ${old.p} killed; ${info.failed} writes refused, statuses ${info.statuses.join('/')}); settled after ${round((performance.now() - killedAt) / 1000, 1)} s`,
      );
    }
    const since = performance.now();
    await until('writes going through at the end', () => writer!.okSince(since) >= 5, 60_000, 50);
    await writer.stop();
    const writes = writer.writes;
    writer = null;
    const roles = await Promise.all(oams.map((o) => o.health()));
    const revisions = await checkRevisions(admin, writes, when);
    return {
      samples,
      trialInfo,
      revisions,
      leadersAtTheEnd: roles.filter((r) => r?.role === 'leader').length,
    };
  } finally {
    await writer?.stop();
    await Promise.all(oams.map((o) => o.stop()));
    pairStopped = true;
    await pair?.stop();
    stopPair();
  }
}

export async function runHa(ctx: PartContext): Promise<Record<string, unknown>> {
  const loadAtStart = loadavg();
  const loads: (number | null)[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'ipfe-bench-ha-'));
  chmodSync(dir, 0o755); // the postgres user reaches its folders inside
  const removeDir = onCleanup('ha folder', () => rmSync(dir, { recursive: true, force: true }));
  const postgres = await startPostgres(join(dir, 'postgres'));
  try {
    const rates = await engines(ctx, dir, await postgres.createDatabase('ipfe_engines'));
    loads.push(loadavg());
    const leader = await takeover(ctx, dir, await postgres.createDatabase('ipfe_takeover'));
    loads.push(loadavg());
    await postgres.stop();
    const store = await storeFailover(ctx, dir);
    loads.push(loadavg());
    const lostCommits = leader.revisions.lost + store.revisions.lost;
    ctx.log(
      `ha: takeover p50 ${round(percentile(leader.samples, 50), 0)} ms p99 ${round(percentile(leader.samples, 99), 0)} ms; store failover p50 ${round(percentile(store.samples, 50), 0)} ms p99 ${round(percentile(store.samples, 99), 0)} ms; lost commits ${lostCommits}; duplicate traps ${leader.traps.duplicates}, lost ${leader.traps.lost}`,
    );
    return {
      ...rates,
      leaderTakeoverMs: stats(leader.samples),
      storeFailoverMs: stats(store.samples),
      lostCommits,
      duplicateTraps: leader.traps.duplicates,
      lostTraps: leader.traps.lost,
      revisionNumbers: {
        gaps: leader.revisions.gapsInLog + store.revisions.gapsInLog,
        duplicates: leader.revisions.duplicatesInLog + store.revisions.duplicatesInLog,
        answeredTwice: leader.revisions.answeredTwice + store.revisions.answeredTwice,
      },
      takeover: {
        twoLeadersSeen: leader.twoLeaders,
        trialsWhoseTrapsTookOver20s: leader.unsettled,
        traps: leader.traps,
        revisions: leader.revisions,
      },
      failover: {
        trials: store.trialInfo,
        leadersAtTheEnd: store.leadersAtTheEnd,
        revisions: store.revisions,
      },
      loadAverage1m: {
        start: loadAtStart,
        afterEngines: loads[0],
        afterTakeover: loads[1],
        end: loads[2],
      },
      method: `engines: one OAM process (apps/api/src/server.ts) on SQLite (its file in a temporary folder, WAL, synchronous FULL) and one on a plain PostgreSQL 15 (initdb in a temporary folder, defaults: fsync and synchronous_commit on) over 127.0.0.1, both with the 32 × 32 configuration of the api part, over HTTP on 127.70.5.x; per round and engine ${ctx.quick ? 3 : 5} s of ${WRITERS} clients each inserting an XSI network of its own and deleting it (If-Match), without pause (commits/s: 2xx answers per second, each a revision; the headline keys), then as long with one such client (oneClient), then autocannon ${CONNECTIONS} connections on GET /api/target-sets for as long; ${ctx.quick ? 1 : 3} rounds alternating which engine goes first (median), after 2 s warm-ups. Takeover: three OAMs on one database of that PostgreSQL (127.70.6.1–3, status interval 200 ms), a real agent A1 and a real snmptrapd; per trial the agent stopped or started, 0–500 ms later the leader SIGKILLed, every survivor's /api/health polled every 20 ms until one says leader; the killed OAM restarted; a writer (PUT /api/options, If-Match, 50 ms apart) through the three in turn. Store failover: apps/api/test/pg-auto-failover.ts (monitor and two nodes on 127.0.0.1, health checks of 1 s), two OAMs given its URL (127.70.7.1–2); a writer (PUT /api/options, 10 ms apart, 20 ms after a refusal) through OAM 1; the primary node SIGKILLed (keeper and PostgreSQL); the time from the kill to the first 2xx of a write sent after the first refused one; the monitor's new primary awaited, the old node restarted and the pair settled before the next trial. lostCommits: writes answered 2xx whose revision is not in GET /api/revisions or does not hold the monitoring port the write sent; duplicateTraps and lostTraps: per alarm of GET /api/alarms, snmptrapd's ipfeAlarmRaised and ipfeAlarmCleared traps with its ipfeAlarmId beyond one, or missing`,
    };
  } finally {
    await postgres.stop();
    removeDir();
  }
}
