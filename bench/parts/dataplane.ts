/**
 * Part 1 of issue 8: what forwarding costs on each data path, against the same offered load sent
 * directly to the servers. Hosts in network namespaces on a bridge: a client, three servers and
 * three IPFE hosts — the agent's user-space path, the agent's kernel path (nftables + conntrack)
 * and HAProxy (TCP mode, one thread) — each on TSAs of its own, all running throughout.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_TOKEN, benchDocument, persistFor } from '../lib/config.ts';
import { onCleanup } from '../lib/cleanup.ts';
import { CpuGroup, cpuBetween, snapshot, type CpuUse } from '../lib/cpu.ts';
import { LineDriver } from '../lib/driver.ts';
import { BenchNet, netnsAvailable } from '../lib/netns.ts';
import { PROFILE_DIR, ROOT } from '../lib/results.ts';
import { median, round, sleep, until } from '../lib/stats.ts';
import { ensureTools } from '../lib/tools.ts';
import type { PartContext } from './context.ts';

const SUBNET = '10.232.1';
const HOSTS = {
  client: `${SUBNET}.50`,
  ipfu: `${SUBNET}.11`,
  ipfk: `${SUBNET}.12`,
  ipfh: `${SUBNET}.13`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
  s3: `${SUBNET}.23`,
};
const ECHO_PORT = 3868;
const IDLE_SECONDS = 4;
const BULK_PORT = 5201;
const MIDDLEBOXES = ['userspace', 'kernel', 'haproxy'] as const;
type Middlebox = (typeof MIDDLEBOXES)[number];
type Path = 'direct' | Middlebox;
const PATHS: Record<Middlebox, { host: 'ipfu' | 'ipfk' | 'ipfh'; tsa: string; bulkTsa: string }> = {
  userspace: { host: 'ipfu', tsa: `${SUBNET}.100`, bulkTsa: `${SUBNET}.101` },
  kernel: { host: 'ipfk', tsa: `${SUBNET}.102`, bulkTsa: `${SUBNET}.103` },
  haproxy: { host: 'ipfh', tsa: `${SUBNET}.104`, bulkTsa: `${SUBNET}.105` },
};

export interface DataplaneSettings {
  /** New connections per second, each a 100-byte request and its echo. */
  rate: number;
  connSeconds: number;
  bulkSeconds: number;
  bulkStreams: number;
  bulkMbitPerStream: number;
  rounds: number;
}

export const DATAPLANE_DEFAULTS: DataplaneSettings = {
  rate: 1000,
  connSeconds: 6,
  bulkSeconds: 5,
  bulkStreams: 16,
  bulkMbitPerStream: 25,
  rounds: 5,
};

interface Run {
  path: Path;
  round: number;
  cpu: CpuUse & {
    /** Per middlebox: its process's CPU, and the part of it in the kernel. */
    groups: Record<string, number | null>;
    kernelSide: Record<string, number | null>;
  };
}
interface ConnRun extends Run {
  ok: number;
  failed: number;
  p50Us: number | null;
  p99Us: number | null;
}
interface BulkRun extends Run {
  bytes: number;
  seconds: number;
}

function haproxyConfig() {
  const p = PATHS.haproxy;
  const server = (name: 's1' | 's2' | 's3', port: number) =>
    `  server ${name} ${HOSTS[name]}:${port} check port 9675 inter 1s`;
  return [
    'global',
    '  nbthread 1',
    '  maxconn 8000',
    'defaults',
    '  mode tcp',
    '  maxconn 8000',
    '  timeout connect 3s',
    '  timeout client 60s',
    '  timeout server 60s',
    'frontend echo',
    `  bind ${p.tsa}:${ECHO_PORT}`,
    '  default_backend echo',
    'backend echo',
    '  balance roundrobin',
    server('s1', ECHO_PORT),
    server('s2', ECHO_PORT),
    'frontend bulk',
    `  bind ${p.bulkTsa}:${BULK_PORT}`,
    '  default_backend bulk',
    'backend bulk',
    server('s3', BULK_PORT),
    '',
  ].join('\n');
}

export async function runDataplane(
  ctx: PartContext,
  settings: DataplaneSettings,
): Promise<Record<string, unknown>> {
  if (!netnsAvailable)
    return { skipped: 'needs root and `ip netns` (iproute2): not measured on this machine' };
  const missing = ensureTools({
    nft: 'nftables',
    conntrack: 'conntrack',
    arping: 'iputils-arping',
    iperf3: 'iperf3',
  });
  if (missing) return { skipped: missing };
  const haproxyMissing = ensureTools({ haproxy: 'haproxy' });
  const middleboxes = MIDDLEBOXES.filter((m) => m !== 'haproxy' || !haproxyMissing);
  if (haproxyMissing) ctx.log(`dataplane: HAProxy not measured: ${haproxyMissing}`);

  const dir = mkdtempSync(join(tmpdir(), 'ipfe-bench-dataplane-'));
  const removeDir = onCleanup('dataplane folder', () =>
    rmSync(dir, { recursive: true, force: true }),
  );
  const group = new CpuGroup(`ipfe-bench-${process.pid}-dataplane`);
  const removeGroup = onCleanup('dataplane cpu group', () => group.remove());
  const groups = Object.fromEntries(
    middleboxes.map((m) => [m, new CpuGroup(`ipfe-bench-${process.pid}-dataplane/${m}`)]),
  ) as Record<Middlebox, CpuGroup>;
  const removeSubgroups = onCleanup('dataplane cpu subgroups', () =>
    Object.values(groups).forEach((g) => g.remove()),
  );
  const net = new BenchNet('ipbd', HOSTS, group, ctx.log);
  const profileDir = process.env.BENCH_PROFILE === '1' ? PROFILE_DIR : null;
  const agents: ChildProcess[] = [];
  try {
    // Application servers: the project's reporter with its echo service; s3 serves iperf3.
    for (const s of ['s1', 's2', 's3'] as const) {
      net.run(s, [
        process.execPath,
        join(ROOT, 'packages/reporter/bin/ipfe-reporter.js'),
        '--listen',
        `${HOSTS[s]}:9675`,
        '--mps-capacity',
        '100000',
        '--connection-capacity',
        '100000',
        ...(s === 's3' ? [] : ['--echo', String(ECHO_PORT)]),
      ]);
    }
    net.run('s3', ['iperf3', '-s', '-B', HOSTS.s3, '-p', String(BULK_PORT)]);

    // The middleboxes, each in its own namespace and CPU group.
    for (const m of middleboxes) {
      const { host, tsa, bulkTsa } = PATHS[m];
      if (m === 'haproxy') {
        for (const a of [tsa, bulkTsa])
          net.sh(host, ['ip', 'addr', 'add', `${a}/32`, 'dev', 'eth0']);
        const cfg = join(dir, 'haproxy.cfg');
        writeFileSync(cfg, haproxyConfig());
        const child = net.run(host, ['haproxy', '-db', '-f', cfg]);
        groups[m].add(child.pid);
        continue;
      }
      if (m === 'kernel') {
        net.sysctl(host, 'net.ipv4.ip_forward', '1');
        for (const scope of ['all', 'default', 'eth0'])
          net.sysctl(host, `net.ipv4.conf.${scope}.send_redirects`, '0');
      }
      const state = join(dir, m);
      persistFor(
        state,
        benchDocument(1, {
          ipfe: { A1: HOSTS[host] },
          options: { forwardedPorts: [ECHO_PORT, BULK_PORT] },
          xsi: `${SUBNET}.0/24`,
          servers: [HOSTS.s1, HOSTS.s2, HOSTS.s3],
          targetSets: [
            { number: 1, tsa, servers: [HOSTS.s1, HOSTS.s2] },
            { number: 2, tsa: bulkTsa, servers: [HOSTS.s3] },
          ],
        }),
      );
      const child = net.run(
        host,
        [
          process.execPath,
          // BENCH_PROFILE=1: a CPU profile of each agent, written at its clean stop below.
          ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', join(profileDir, m)] : []),
          join(ROOT, 'apps/agent/bin/ipfe-agent.js'),
          '--slot',
          'A1',
          '--control',
          `${HOSTS[host]}:8701`,
          '--state-dir',
          state,
          '--dataplane',
          m,
          '--manage-addresses',
          'eth0',
        ],
        {
          IPFE_AGENT_TOKEN: BENCH_TOKEN,
          LOG_LEVEL: 'warn',
        },
      );
      agents.push(child);
      groups[m].add(child.pid);
    }

    const client = new LineDriver(
      net.run('client', [
        process.execPath,
        '--import',
        'tsx',
        join(ROOT, 'bench/drivers/load-client.ts'),
      ]),
    );
    await client.ready();

    const echoTargets = (path: Path): [string, number][] =>
      path === 'direct'
        ? [
            [HOSTS.s1, ECHO_PORT],
            [HOSTS.s2, ECHO_PORT],
          ]
        : [[PATHS[path].tsa, ECHO_PORT]];
    const paths: Path[] = ['direct', ...middleboxes];

    // Every path forwards before anything is measured (all 20 probes answered).
    for (const path of paths) {
      await until(
        `the ${path} path to answer`,
        async () =>
          (
            await client.ask<{ ok: number }>({
              op: 'conns',
              targets: echoTargets(path),
              rate: 200,
              seconds: 0.1,
              bytes: 100,
              timeoutMs: 1000,
            })
          ).ok === 20,
        45_000,
        500,
      );
    }
    const kernelTable = net.exec('ipfk', ['nft', 'list', 'table', 'inet', 'ipfe_a1']);
    const kernelOn = kernelTable.status === 0 && kernelTable.stdout.includes('dnat');
    if (!kernelOn) ctx.log('dataplane: the kernel agent did not program nftables (fell back?)');
    await sleep(1000); // bulk TSAs: the reporters' first heartbeats have made every server normal

    const snap = () => ({
      base: snapshot(group),
      groups: Object.fromEntries(middleboxes.map((m) => [m, groups[m].usageUs()])),
      kernelSide: Object.fromEntries(middleboxes.map((m) => [m, groups[m].systemUs()])),
    });
    const measure = async <T>(fn: () => Promise<T>) => {
      const a = snap();
      const value = await fn();
      const b = snap();
      const g = Object.fromEntries(
        middleboxes.map((m) => {
          const x = a.groups[m];
          const y = b.groups[m];
          return [m, x === null || y === null || x === undefined || y === undefined ? null : y - x];
        }),
      );
      const k = Object.fromEntries(
        middleboxes.map((m) => {
          const x = a.kernelSide[m];
          const y = b.kernelSide[m];
          return [m, x === null || y === null || x === undefined || y === undefined ? null : y - x];
        }),
      );
      return { value, cpu: { ...cpuBetween(a.base, b.base), groups: g, kernelSide: k } };
    };

    const connRun = async (path: Path, seconds: number) =>
      measure(() =>
        client.ask<{ ok: number; failed: number; p50Us: number | null; p99Us: number | null }>(
          {
            op: 'conns',
            targets: echoTargets(path),
            rate: settings.rate,
            seconds,
            bytes: 100,
            timeoutMs: 3000,
          },
          seconds * 1000 + 60_000,
        ),
      );

    const bulkRun = (path: Path) =>
      measure(
        () =>
          new Promise<{ bytes: number; seconds: number }>((resolve, reject) => {
            const host = path === 'direct' ? HOSTS.s3 : PATHS[path].bulkTsa;
            const child = net.run('client', [
              'iperf3',
              '-c',
              host,
              '-p',
              String(BULK_PORT),
              '-P',
              String(settings.bulkStreams),
              '-b',
              `${settings.bulkMbitPerStream}M`,
              '-t',
              String(settings.bulkSeconds),
              '-J',
            ]);
            let out = '';
            child.stdout!.on('data', (d: Buffer) => (out += d));
            const timer = setTimeout(() => net.kill(child), (settings.bulkSeconds + 30) * 1000);
            child.once('exit', () => {
              clearTimeout(timer);
              try {
                const report = JSON.parse(out) as {
                  error?: string;
                  end?: { sum_received?: { bytes: number; seconds: number } };
                };
                if (report.error || !report.end?.sum_received)
                  return reject(new Error(`iperf3 via ${path}: ${report.error ?? 'no summary'}`));
                resolve({
                  bytes: report.end.sum_received.bytes,
                  seconds: report.end.sum_received.seconds,
                });
              } catch {
                reject(new Error(`iperf3 via ${path}: ${out.slice(0, 300)}`));
              }
            });
          }),
      );

    // The kernel agent lists its TSAs' conntrack entries every second, so its work grows with
    // the table; entries left by a kernel run (TIME_WAIT: 120 s) would bill that work to the runs
    // of other paths. They go after each kernel run; within one, the table grows as it would.
    const forgetKernelConnections = (path: Path) => {
      if (path === 'kernel') net.exec('ipfk', ['conntrack', '-F']);
    };

    // Warm-up: JIT, ARP, first connections of every path.
    for (const path of paths) {
      await connRun(path, 1);
      forgetKernelConnections(path);
    }
    // What each middlebox uses with no traffic (timers, heartbeats, health checks): it runs
    // through every measurement, the direct one included, so it cancels out of the costs.
    await sleep(1000);
    const idle = await measure(() => sleep(IDLE_SECONDS * 1000));

    const conns: ConnRun[] = [];
    const bulks: BulkRun[] = [];
    for (let r = 0; r < settings.rounds; r++) {
      // The order rotates each round, so that a drift in the machine's load spreads over paths.
      const order = paths.map((_, i) => paths[(i + r) % paths.length]!);
      for (const path of order) {
        const c = await connRun(path, settings.connSeconds);
        conns.push({ path, round: r, cpu: c.cpu, ...c.value });
        forgetKernelConnections(path);
        ctx.log(
          `dataplane round ${r + 1}/${settings.rounds} ${path}: ${c.value.ok} conns (${c.value.failed} failed), ` +
            `p99 ${round((c.value.p99Us ?? NaN) / 1000, 2)} ms, system ${round(c.cpu.systemUs / c.value.ok)} µs/conn, own ${round((c.cpu.ownUs ?? NaN) / c.value.ok)} µs/conn, others ${round((c.cpu.othersUs ?? NaN) / 1000)} ms`,
        );
        await sleep(500);
        const b = await bulkRun(path);
        bulks.push({ path, round: r, cpu: b.cpu, ...b.value });
        forgetKernelConnections(path);
        const mb = b.value.bytes / 1e6;
        ctx.log(
          `dataplane round ${r + 1}/${settings.rounds} ${path}: bulk ${round(mb)} MB in ${round(b.value.seconds)} s, ` +
            `system ${round(b.cpu.systemUs / mb)} µs/MB, own ${round((b.cpu.ownUs ?? NaN) / mb)} µs/MB`,
        );
        await sleep(500);
      }
    }
    await client.ask({ op: 'quit' }, 2000).catch(() => undefined);
    if (profileDir) for (const agent of agents) await net.stop(agent, 'SIGTERM');
    return summarize(settings, middleboxes, conns, bulks, idle.cpu, kernelOn, haproxyMissing);
  } finally {
    net.remove();
    removeSubgroups();
    removeGroup();
    removeDir();
  }
}

/** Cost per connection and per MB of each path, minus the direct path's in the same round. */
function summarize(
  settings: DataplaneSettings,
  middleboxes: readonly Middlebox[],
  conns: ConnRun[],
  bulks: BulkRun[],
  idle: Run['cpu'],
  kernelOn: boolean,
  haproxyMissing: string | null,
) {
  const rounds = [...Array(settings.rounds).keys()];
  const perConn = (path: Path, r: number, measure: 'systemUs' | 'ownUs') => {
    const run = conns.find((c) => c.path === path && c.round === r)!;
    const cpu = run.cpu[measure];
    return cpu === null || run.ok === 0 ? NaN : cpu / run.ok;
  };
  const perMB = (path: Path, r: number, measure: 'systemUs' | 'ownUs') => {
    const run = bulks.find((c) => c.path === path && c.round === r)!;
    const cpu = run.cpu[measure];
    return cpu === null || run.bytes === 0 ? NaN : cpu / (run.bytes / 1e6);
  };
  const cost = (path: Middlebox, fn: typeof perConn, measure: 'systemUs' | 'ownUs') =>
    median(rounds.map((r) => fn(path, r, measure) - fn('direct', r, measure)));
  const p99 = (path: Path) =>
    median(conns.filter((c) => c.path === path).map((c) => (c.p99Us ?? NaN) / 1000));
  const p50 = (path: Path) =>
    median(conns.filter((c) => c.path === path).map((c) => (c.p50Us ?? NaN) / 1000));
  /** A middlebox's own process (agent or HAProxy) CPU per connection / per MB, its idle use deducted. */
  const idleRate = (path: Middlebox) => (idle.groups[path] ?? NaN) / idle.wallUs;
  const processCost = (path: Middlebox, kind: 'conn' | 'bulk') =>
    median(
      rounds.map((r) => {
        const run = (kind === 'conn' ? conns : bulks).find(
          (c) => c.path === path && c.round === r,
        )!;
        const us = run.cpu.groups[path];
        const units = kind === 'conn' ? (run as ConnRun).ok : (run as BulkRun).bytes / 1e6;
        return us === null || us === undefined
          ? NaN
          : (us - idleRate(path) * run.cpu.wallUs) / units;
      }),
    );

  const result: Record<string, unknown> = {};
  const figures: Record<string, Record<string, number | null>> = {};
  for (const measure of ['systemUs', 'ownUs'] as const) {
    const f: Record<string, number | null> = {};
    for (const m of middleboxes) {
      f[`${m}UsPerConn`] = round(cost(m, perConn, measure), 1);
      f[`${m}UsPerMB`] = round(cost(m, perMB, measure), 1);
    }
    figures[measure] = f;
  }
  // The keys come from the benchmark's own processes when the cpuacct group exists: on a machine
  // shared with other work the system-wide delta is mostly that other work (see docs/benchmarks.md).
  const own = conns.every((c) => c.cpu.ownUs !== null);
  const headline = own ? figures.ownUs! : figures.systemUs!;
  for (const m of middleboxes) {
    result[`${m}UsPerConn`] = headline[`${m}UsPerConn`];
    result[`${m}UsPerMB`] = headline[`${m}UsPerMB`];
    result[`${m}P99Ms`] = round(p99(m), 3);
  }
  const ratios = (f: Record<string, number | null>) => {
    const ratio = (a: number | null | undefined, b: number | null | undefined) =>
      typeof a === 'number' && typeof b === 'number' && a > 0 && b > 0 ? round(a / b, 2) : null;
    const best = (['kernel', 'userspace'] as const).reduce<'kernel' | 'userspace' | null>(
      (acc, m) => {
        const v = f[`${m}UsPerConn`];
        if (typeof v !== 'number' || v <= 0) return acc;
        return acc === null || v < (f[`${acc}UsPerConn`] ?? Infinity) ? m : acc;
      },
      null,
    );
    return {
      bestPath: best,
      connCostRatio: best ? ratio(f.haproxyUsPerConn, f[`${best}UsPerConn`]) : null,
      byteCostRatio: best ? ratio(f.haproxyUsPerMB, f[`${best}UsPerMB`]) : null,
      userspaceConnCostRatio: ratio(f.haproxyUsPerConn, f.userspaceUsPerConn),
      userspaceByteCostRatio: ratio(f.haproxyUsPerMB, f.userspaceUsPerMB),
      kernelConnCostRatio: ratio(f.haproxyUsPerConn, f.kernelUsPerConn),
      kernelByteCostRatio: ratio(f.haproxyUsPerMB, f.kernelUsPerMB),
    };
  };
  const headlineRatios = ratios(headline);
  Object.assign(result, headlineRatios);
  const best = headlineRatios.bestPath;
  result.p99Ratio =
    best && middleboxes.includes('haproxy') ? round(p99('haproxy') / p99(best), 2) : null;
  result.directP50Ms = round(p50('direct'), 3);
  result.directP99Ms = round(p99('direct'), 3);
  for (const m of middleboxes) result[`${m}P50Ms`] = round(p50(m), 3);
  const others = [...conns, ...bulks].map((c) => (c.cpu.othersUs ?? NaN) / c.cpu.wallUs);
  result.method = own
    ? 'CPU of the benchmark’s own processes (a cpuacct cgroup: client, servers, agents, HAProxy, what they spawn, softirq work done in their context) plus the ksoftirqd threads, per run, minus the direct path’s in the same round; median over rounds'
    : 'system-wide busy CPU from /proc/stat per run, minus the direct path’s in the same round; median over rounds';
  result.systemWide = {
    note: 'the issue’s method: system-wide busy CPU from /proc/stat minus the direct path’s. Other work on the machine is in it (see othersCpuCores)',
    ...figures.systemUs,
    ...ratios(figures.systemUs!),
    othersCpuCoresMedian: round(median(others), 2),
    othersCpuCoresMax: round(Math.max(...others), 2),
  };
  result.middleboxProcess = Object.fromEntries(
    middleboxes.map((m) => [
      m,
      {
        usPerConn: round(processCost(m, 'conn'), 1),
        usPerMB: round(processCost(m, 'bulk'), 1),
        idleCpuPct: round(100 * idleRate(m), 2),
        kernelSidePctInConnRuns: round(
          median(
            conns
              .filter((c) => c.path === m)
              .map((c) => (100 * (c.cpu.kernelSide[m] ?? NaN)) / (c.cpu.groups[m] ?? NaN)),
          ),
          0,
        ),
      },
    ]),
  );
  result.settings = {
    ...settings,
    requestBytes: 100,
    topology:
      'network namespaces: client, 3 servers, 3 IPFE hosts (agent user space, agent kernel, HAProxy) on one bridge',
    kernelPathProgrammed: kernelOn,
    haproxy: haproxyMissing ?? 'HAProxy TCP mode, nbthread 1, roundrobin, check port 9675 inter 1s',
    algorithm: 'hash (Maglev) over s1, s2; the bulk Target Set has s3 alone',
  };
  result.runs = {
    conns: conns.map((c) => ({
      path: c.path,
      round: c.round,
      ok: c.ok,
      failed: c.failed,
      p50Ms: round((c.p50Us ?? NaN) / 1000, 3),
      p99Ms: round((c.p99Us ?? NaN) / 1000, 3),
      systemMs: round(c.cpu.systemUs / 1000),
      ownMs: round((c.cpu.ownUs ?? NaN) / 1000),
      othersMs: round((c.cpu.othersUs ?? NaN) / 1000),
      wallMs: round(c.cpu.wallUs / 1000),
    })),
    bulk: bulks.map((b) => ({
      path: b.path,
      round: b.round,
      MB: round(b.bytes / 1e6),
      seconds: round(b.seconds, 2),
      systemMs: round(b.cpu.systemUs / 1000),
      ownMs: round((b.cpu.ownUs ?? NaN) / 1000),
      othersMs: round((b.cpu.othersUs ?? NaN) / 1000),
      wallMs: round(b.cpu.wallUs / 1000),
    })),
  };
  return result;
}
