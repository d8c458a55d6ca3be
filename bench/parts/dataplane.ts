/**
 * Part 1 of issue 8: what forwarding costs on each data path, against the same offered load sent
 * directly to the servers. Hosts in network namespaces on a bridge: a client, three servers and
 * three IPFE hosts — the agent's user-space path, the agent's kernel path (nftables + conntrack)
 * and HAProxy (TCP mode, one thread) — each on TSAs of its own, all running throughout.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_TOKEN, benchDocument, persistFor } from '../lib/config.ts';
import { onCleanup } from '../lib/cleanup.ts';
import { CpuGroup, cpuBetween, snapshot, type CpuUse } from '../lib/cpu.ts';
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
  connSeconds: 5,
  bulkSeconds: 5,
  bulkStreams: 16,
  bulkMbitPerStream: 50,
  rounds: 4,
};

interface LoadResult {
  launched: number;
  ok: number;
  failed: number;
  timeouts: number;
  p50Us: number | null;
  p99Us: number | null;
}

interface Run {
  path: Path;
  round: number;
  /** Position in the run sequence (direct runs sit between the others). */
  seq: number;
  cpu: CpuUse & {
    /** Per middlebox: its process's CPU, and the share of it in the kernel (from ticks). */
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
    cc: 'gcc',
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
    // The client and the echo service in C: what they cost is in every run, the direct one
    // included, so the less they cost (and vary), the clearer the difference the paths make.
    const loadgen = join(dir, 'loadgen');
    const echo = join(dir, 'echo');
    for (const [source, binary] of [
      ['loadgen.c', loadgen],
      ['echo.c', echo],
    ] as const) {
      const built = spawnSync('cc', ['-O2', '-o', binary, join(ROOT, 'bench/drivers', source)], {
        encoding: 'utf8',
      });
      if (built.status !== 0) throw new Error(`cc ${source}: ${built.stderr.trim()}`);
    }
    // Application servers: the project's reporter (heartbeats), the echo service; s3: iperf3.
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
      ]);
      if (s !== 's3') net.run(s, [echo, HOSTS[s], String(ECHO_PORT)]);
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

    /** A command in the client's namespace, to its end: its standard output. */
    const inClient = (command: string[], timeoutMs: number) =>
      new Promise<string>((resolve) => {
        const child = net.run('client', command);
        let out = '';
        child.stdout!.on('data', (d: Buffer) => (out += d));
        const timer = setTimeout(() => net.kill(child), timeoutMs);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve(out);
        });
      });
    const load = async (path: Path, rate: number, seconds: number, timeoutMs: number) => {
      const targets =
        path === 'direct'
          ? [`${HOSTS.s1}:${ECHO_PORT}`, `${HOSTS.s2}:${ECHO_PORT}`]
          : [`${PATHS[path].tsa}:${ECHO_PORT}`];
      const out = await inClient(
        [loadgen, String(rate), String(seconds), '100', String(timeoutMs), ...targets],
        seconds * 1000 + timeoutMs + 30_000,
      );
      try {
        const result = JSON.parse(out) as LoadResult;
        return result.ok > 0 ? result : { ...result, p50Us: null, p99Us: null };
      } catch {
        throw new Error(`loadgen via ${path}: ${out.slice(0, 300) || 'no output'}`);
      }
    };
    const paths: Path[] = ['direct', ...middleboxes];

    // Every path forwards before anything is measured (all 20 probes answered).
    for (const path of paths) {
      await until(
        `the ${path} path to answer`,
        async () => (await load(path, 200, 0.1, 1000)).ok === 20,
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
      split: Object.fromEntries(middleboxes.map((m) => [m, groups[m].split()])),
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
          const x = a.split[m];
          const y = b.split[m];
          if (!x || !y) return [m, null];
          const system = y.system - x.system;
          const total = system + y.user - x.user;
          return [m, total > 0 ? system / total : null];
        }),
      );
      return { value, cpu: { ...cpuBetween(a.base, b.base), groups: g, kernelSide: k } };
    };

    const connRun = async (path: Path, seconds: number) =>
      measure(() => load(path, settings.rate, seconds, 3000));

    const bulkRun = (path: Path) =>
      measure(
        () =>
          new Promise<{ bytes: number; seconds: number }>((resolve, reject) => {
            const host = path === 'direct' ? HOSTS.s3 : PATHS[path].bulkTsa;
            void inClient(
              [
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
              ],
              (settings.bulkSeconds + 30) * 1000,
            ).then((out) => {
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
    // Each path's run sits between two direct runs (D X D Y D Z D X …), and its cost is taken
    // against their mean, so that a drift in the machine's load cancels; the order of X, Y, Z
    // rotates each round.
    const sequence: { path: Path; round: number }[] = [{ path: 'direct', round: 0 }];
    for (let r = 0; r < settings.rounds; r++)
      for (let i = 0; i < middleboxes.length; i++)
        sequence.push(
          { path: middleboxes[(i + r) % middleboxes.length]!, round: r },
          { path: 'direct', round: r },
        );
    for (const [seq, { path, round: r }] of sequence.entries()) {
      const c = await connRun(path, settings.connSeconds);
      conns.push({ path, round: r, seq, cpu: c.cpu, ...c.value });
      forgetKernelConnections(path);
      const tag = `dataplane ${seq + 1}/${sequence.length} ${path}`;
      ctx.log(
        `${tag}: ${c.value.ok} conns (${c.value.failed} failed), p99 ${round((c.value.p99Us ?? NaN) / 1000, 2)} ms, ` +
          `system ${round(c.cpu.systemUs / c.value.ok)} µs/conn, own ${round((c.cpu.ownUs ?? NaN) / c.value.ok)} µs/conn, others ${round((c.cpu.othersUs ?? NaN) / 1000)} ms`,
      );
      await sleep(300);
      const b = await bulkRun(path);
      bulks.push({ path, round: r, seq, cpu: b.cpu, ...b.value });
      forgetKernelConnections(path);
      const mb = b.value.bytes / 1e6;
      ctx.log(
        `${tag}: bulk ${round(mb)} MB in ${round(b.value.seconds)} s, ` +
          `system ${round(b.cpu.systemUs / mb)} µs/MB, own ${round((b.cpu.ownUs ?? NaN) / mb)} µs/MB`,
      );
      await sleep(300);
    }
    if (profileDir) for (const agent of agents) await net.stop(agent, 'SIGTERM');
    return summarize(settings, middleboxes, conns, bulks, idle.cpu, kernelOn, haproxyMissing);
  } finally {
    net.remove();
    removeSubgroups();
    removeGroup();
    removeDir();
  }
}

/** Cost per connection and per MB of each path, minus the direct runs' around it; medians over rounds. */
function summarize(
  settings: DataplaneSettings,
  middleboxes: readonly Middlebox[],
  conns: ConnRun[],
  bulks: BulkRun[],
  idle: Run['cpu'],
  kernelOn: boolean,
  haproxyMissing: string | null,
) {
  type Measure = 'systemUs' | 'ownUs';
  const perConn = (run: ConnRun, measure: Measure) => {
    const cpu = run.cpu[measure];
    return cpu === null || run.ok === 0 ? NaN : cpu / run.ok;
  };
  const perMB = (run: BulkRun, measure: Measure) => {
    const cpu = run.cpu[measure];
    return cpu === null || run.bytes === 0 ? NaN : cpu / (run.bytes / 1e6);
  };
  /** Per round: the path's cost minus the mean of the two direct runs around it. */
  const costs = <R extends Run>(
    runs: R[],
    path: Middlebox,
    fn: (run: R, measure: Measure) => number,
    measure: Measure,
  ) =>
    runs
      .filter((run) => run.path === path)
      .map((run) => {
        const around = runs.filter((d) => d.path === 'direct' && Math.abs(d.seq - run.seq) === 1);
        return fn(run, measure) - around.reduce((a, d) => a + fn(d, measure), 0) / around.length;
      });
  const p99 = (path: Path) =>
    median(conns.filter((c) => c.path === path).map((c) => (c.p99Us ?? NaN) / 1000));
  const p50 = (path: Path) =>
    median(conns.filter((c) => c.path === path).map((c) => (c.p50Us ?? NaN) / 1000));
  /** A middlebox's own process (agent or HAProxy) CPU per connection / per MB, its idle use deducted. */
  const idleRate = (path: Middlebox) => (idle.groups[path] ?? NaN) / idle.wallUs;
  const processCost = (path: Middlebox, kind: 'conn' | 'bulk') =>
    median(
      (kind === 'conn' ? conns : bulks)
        .filter((c) => c.path === path)
        .map((run) => {
          const us = run.cpu.groups[path];
          const units = kind === 'conn' ? (run as ConnRun).ok : (run as BulkRun).bytes / 1e6;
          return us === null || us === undefined
            ? NaN
            : (us - idleRate(path) * run.cpu.wallUs) / units;
        }),
    );

  const result: Record<string, unknown> = {};
  type Figures = Record<string, { median: number; min: number; max: number }>;
  const figures: Record<'systemUs' | 'ownUs', Figures> = { systemUs: {}, ownUs: {} };
  for (const measure of ['systemUs', 'ownUs'] as const) {
    for (const m of middleboxes) {
      for (const [key, values] of [
        [`${m}UsPerConn`, costs(conns, m, perConn, measure)],
        [`${m}UsPerMB`, costs(bulks, m, perMB, measure)],
      ] as const) {
        figures[measure][key] = {
          median: median(values),
          min: Math.min(...values),
          max: Math.max(...values),
        };
      }
    }
  }
  // The keys come from the benchmark's own processes when the cpuacct group exists: on a machine
  // shared with other work the system-wide delta is mostly that other work (see docs/benchmarks.md).
  const own = conns.every((c) => c.cpu.ownUs !== null);
  const headline = own ? figures.ownUs : figures.systemUs;
  for (const m of middleboxes) {
    result[`${m}UsPerConn`] = round(headline[`${m}UsPerConn`]!.median, 1);
    result[`${m}UsPerMB`] = round(headline[`${m}UsPerMB`]!.median, 1);
    result[`${m}P99Ms`] = round(p99(m), 3);
  }
  /**
   * HAProxy's cost ÷ ours, for our cheapest path by median. Where that path's rounds do not all
   * cost more than the direct path (its cost is within the noise), its worst round stands in for
   * it: the ratio is then a lower bound, and says so.
   */
  const ratios = (f: Figures) => {
    const ratio = (unit: 'Conn' | 'MB', ours: 'kernel' | 'userspace') => {
      const theirs = f[`haproxyUsPer${unit}`];
      const mine = f[`${ours}UsPer${unit}`];
      if (!theirs || !mine || !(theirs.median > 0)) return { value: null, lowerBound: false };
      const lowerBound = !(mine.min > 0);
      const denominator = lowerBound ? mine.max : mine.median;
      return denominator > 0
        ? { value: round(theirs.median / denominator, 2), lowerBound }
        : { value: null, lowerBound };
    };
    const cheapest = (unit: 'Conn' | 'MB') =>
      (['kernel', 'userspace'] as const)
        .filter((m) => f[`${m}UsPer${unit}`])
        .sort((a, b) => f[`${a}UsPer${unit}`]!.median - f[`${b}UsPer${unit}`]!.median)[0] ?? null;
    const conn = cheapest('Conn');
    const byte = cheapest('MB');
    const connRatio = conn ? ratio('Conn', conn) : { value: null, lowerBound: false };
    const byteRatio = byte ? ratio('MB', byte) : { value: null, lowerBound: false };
    return {
      bestPath: conn,
      bestPathPerMB: byte,
      connCostRatio: connRatio.value,
      connCostRatioIsLowerBound: connRatio.lowerBound,
      byteCostRatio: byteRatio.value,
      byteCostRatioIsLowerBound: byteRatio.lowerBound,
      userspaceConnCostRatio: ratio('Conn', 'userspace').value,
      userspaceByteCostRatio: ratio('MB', 'userspace').value,
      kernelConnCostRatio: ratio('Conn', 'kernel').value,
      kernelByteCostRatio: ratio('MB', 'kernel').value,
    };
  };
  const ranges = (f: Figures) =>
    Object.fromEntries(
      Object.entries(f).map(([k, v]) => [k, { min: round(v.min, 1), max: round(v.max, 1) }]),
    );
  const medians = (f: Figures) =>
    Object.fromEntries(Object.entries(f).map(([k, v]) => [k, round(v.median, 1)]));
  const headlineRatios = ratios(headline);
  Object.assign(result, headlineRatios);
  result.costRangesOverRounds = ranges(headline);
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
    ...medians(figures.systemUs),
    ...ratios(figures.systemUs),
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
          median(conns.filter((c) => c.path === m).map((c) => 100 * (c.cpu.kernelSide[m] ?? NaN))),
          0,
        ),
      },
    ]),
  );
  result.settings = {
    ...settings,
    requestBytes: 100,
    sequence:
      'a direct run before and after every other run (D X D Y D Z D …, X/Y/Z rotating per round); a path’s cost in a round is its run minus the mean of the two direct runs around it',
    clientAndService: 'bench/drivers/loadgen.c and echo.c (C, epoll), built with cc -O2',
    topology:
      'network namespaces: client, 3 servers, 3 IPFE hosts (agent user space, agent kernel, HAProxy) on one bridge',
    kernelPathProgrammed: kernelOn,
    haproxy: haproxyMissing ?? 'HAProxy TCP mode, nbthread 1, roundrobin, check port 9675 inter 1s',
    algorithm: 'hash (Maglev) over s1, s2; the bulk Target Set has s3 alone',
  };
  result.runs = {
    conns: conns.map((c) => ({
      seq: c.seq,
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
      seq: b.seq,
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
