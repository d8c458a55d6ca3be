/**
 * Part 1 of issue 8 (and the direct path of issue 15): what forwarding costs on each data path,
 * against the same offered load sent straight to the servers (the baseline). Hosts in network
 * namespaces on a bridge: a client, three servers and four IPFE hosts — the agent's user-space
 * path, its kernel path (nftables DNAT + conntrack), its direct path (nftables netdev `fwd`, the
 * servers holding the TSA and answering the client themselves) and HAProxy (TCP mode, one thread)
 * — each on TSAs of its own, all running throughout. Every cost comes with the resolution of the
 * method (bench/lib/resolution.ts); a cost within it is reported as such, never as a ratio.
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
import { costRatio, nilResolution, resolutionOf, resolve } from '../lib/resolution.ts';
import { median, round, sleep, until } from '../lib/stats.ts';
import { ensureTools } from '../lib/tools.ts';
import type { PartContext } from './context.ts';

const SUBNET = '10.232.1';
const HOSTS = {
  client: `${SUBNET}.50`,
  ipfu: `${SUBNET}.11`,
  ipfk: `${SUBNET}.12`,
  ipfh: `${SUBNET}.13`,
  ipfd: `${SUBNET}.14`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
  s3: `${SUBNET}.23`,
};
const ECHO_PORT = 3868;
const IDLE_SECONDS = 4;
const BULK_PORT = 5201;
const MIDDLEBOXES = ['userspace', 'kernel', 'direct', 'haproxy'] as const;
type Middlebox = (typeof MIDDLEBOXES)[number];
/** `baseline`: the client straight to the servers, no IPFE in between. */
type Path = 'baseline' | Middlebox;
const PATHS: Record<
  Middlebox,
  { host: 'ipfu' | 'ipfk' | 'ipfd' | 'ipfh'; tsa: string; bulkTsa: string }
> = {
  userspace: { host: 'ipfu', tsa: `${SUBNET}.100`, bulkTsa: `${SUBNET}.101` },
  kernel: { host: 'ipfk', tsa: `${SUBNET}.102`, bulkTsa: `${SUBNET}.103` },
  haproxy: { host: 'ipfh', tsa: `${SUBNET}.104`, bulkTsa: `${SUBNET}.105` },
  direct: { host: 'ipfd', tsa: `${SUBNET}.106`, bulkTsa: `${SUBNET}.107` },
};
/** The direct path's IPFE counts here what reaches it on its way to the client (goal: nothing). */
const COUNT_TABLE = 'bd_count';

export interface DataplaneSettings {
  /** New connections per second, each a 100-byte request and its echo. */
  rate: number;
  connSeconds: number;
  bulkSeconds: number;
  bulkStreams: number;
  bulkMbitPerStream: number;
  rounds: number;
}

/**
 * 5 rounds: with four paths, 41 runs of each kind, about 8 minutes here. Connection runs of 6 s
 * (6,000 connections): the direct path costs a few µs a connection, and the resolution of a
 * per-connection cost falls with the connections a run holds and the rounds.
 */
export const DATAPLANE_DEFAULTS: DataplaneSettings = {
  rate: 1000,
  connSeconds: 6,
  bulkSeconds: 3,
  bulkStreams: 16,
  bulkMbitPerStream: 50,
  rounds: 5,
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
  /** Position in the run sequence (baseline runs sit between the others). */
  seq: number;
  cpu: CpuUse & {
    /** Per middlebox: its process's CPU, and the share of it in the kernel (from ticks). */
    groups: Record<string, number | null>;
    kernelSide: Record<string, number | null>;
  };
}
/** A middlebox run's own process CPU (an agent with what it spawns, or HAProxy), and its kernel share. */
function middleboxOf(run: Run): {
  middleboxMs?: number | null;
  middleboxKernelPct?: number | null;
} {
  if (run.path === 'baseline') return {};
  const us = run.cpu.groups[run.path] ?? null;
  const kernel = run.cpu.kernelSide[run.path] ?? null;
  return {
    ...(us === null ? {} : { middleboxMs: round(us / 1000, 1) }),
    ...(kernel === null ? {} : { middleboxKernelPct: round(kernel * 100) }),
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
/** What reached the direct path's IPFE during a run of it, on its way to the client. */
interface TowardsClient {
  /** Packets and bytes addressed to the client arriving on the IPFE's eth0 (nft counter). */
  packets: number;
  bytes: number;
  /** Of them, with the TSA as source: the servers' replies. */
  fromTsaBytes: number;
  /** The IPFE's eth0 in the same run (ip -s link): received and sent. */
  linkRxBytes: number;
  linkTxBytes: number;
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
  const startedAt = Date.now();
  const elapsed = () => `${Math.round((Date.now() - startedAt) / 1000)} s`;
  const group = new CpuGroup(`ipfe-bench-${process.pid}-dataplane`);
  const removeGroup = onCleanup('dataplane cpu group', () => group.remove());
  const groups = Object.fromEntries(
    middleboxes.map((m) => [m, new CpuGroup(`ipfe-bench-${process.pid}-dataplane/${m}`)]),
  ) as Record<Middlebox, CpuGroup>;
  const removeSubgroups = onCleanup('dataplane cpu subgroups', () =>
    Object.values(groups).forEach((g) => g.remove()),
  );
  const net = new BenchNet('bdp', HOSTS, group, ctx.log);
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
    // Application servers: the project's reporter (heartbeats; it holds the direct path's TSAs
    // as a server of that path must), the echo service; s3: iperf3. The services listen on the
    // server's own address (baseline and NAT paths) and on the direct path's TSAs.
    const direct = PATHS.direct;
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
        '--hold-tsa',
        `${direct.tsa},${direct.bulkTsa}`,
      ]);
    }
    await until(
      'every server to hold the direct path’s TSAs',
      () =>
        (['s1', 's2', 's3'] as const).every((s) =>
          net.exec(s, ['ip', '-4', 'addr', 'show', 'eth0']).stdout.includes(`${direct.bulkTsa}/`),
        ),
      20_000,
      200,
    );
    for (const s of ['s1', 's2'] as const) {
      net.run(s, [echo, HOSTS[s], String(ECHO_PORT)]);
      net.run(s, [echo, direct.tsa, String(ECHO_PORT)]);
    }
    net.run('s3', ['iperf3', '-s', '-B', HOSTS.s3, '-p', String(BULK_PORT)]);
    net.run('s3', ['iperf3', '-s', '-B', direct.bulkTsa, '-p', String(BULK_PORT)]);

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
      if (m === 'direct') {
        // Counted before the agent's own chain (priority -150) sees the packet; counting only.
        const loaded = spawnSync('ip', ['netns', 'exec', net.topology.ns(host), 'nft', '-f', '-'], {
          input: [
            `add table netdev ${COUNT_TABLE}`,
            `add counter netdev ${COUNT_TABLE} to_client`,
            `add counter netdev ${COUNT_TABLE} from_tsa`,
            `add chain netdev ${COUNT_TABLE} ingress { type filter hook ingress device "eth0" priority -500; policy accept; }`,
            `add rule netdev ${COUNT_TABLE} ingress ip daddr ${HOSTS.client} counter name "to_client"`,
            `add rule netdev ${COUNT_TABLE} ingress ip saddr { ${tsa}, ${bulkTsa} } ip daddr ${HOSTS.client} counter name "from_tsa"`,
            '',
          ].join('\n'),
          encoding: 'utf8',
        });
        if (loaded.status !== 0) throw new Error(`${host}: nft: ${loaded.stderr.trim()}`);
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
        path === 'baseline'
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
    const paths: Path[] = ['baseline', ...middleboxes];
    ctx.log(`dataplane: hosts and services started (${elapsed()})`);

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
    // JSON: nft 1.0.6 crashes printing the agent's `typeof jhash` maps as text; their 65,537
    // elements take a few MB.
    const directTable = spawnSync(
      'ip',
      ['netns', 'exec', net.topology.ns('ipfd'), 'nft', '-j', 'list', 'table', 'netdev', 'ipfe_a1'],
      { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
    );
    const directOn = directTable.status === 0 && directTable.stdout.includes('"fwd"');
    if (!directOn) ctx.log('dataplane: the direct agent did not program its netdev table');
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
            const host = path === 'baseline' ? HOSTS.s3 : PATHS[path].bulkTsa;
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
    // The direct agent lists its flow records (Delete Age: 600 s) the same way: they go after
    // each direct run.
    const forgetKernelConnections = (path: Path) => {
      if (path === 'kernel') net.exec('ipfk', ['conntrack', '-F']);
      if (path === 'direct') {
        // Its records: one set per TSA and server (rec_<tsa>_<id>), named as a terse listing says.
        const listed = net.exec('ipfd', [
          'nft',
          '-t',
          '-j',
          'list',
          'sets',
          'table',
          'netdev',
          'ipfe_a1',
        ]);
        const names = (
          JSON.parse(listed.stdout || '{"nftables":[]}') as {
            nftables: { set?: { name: string } }[];
          }
        ).nftables.flatMap((i) => (i.set?.name.startsWith('rec_') ? [i.set.name] : []));
        for (const name of names)
          net.exec('ipfd', ['nft', 'flush', 'set', 'netdev', 'ipfe_a1', name]);
      }
    };
    /** The direct IPFE's counters of traffic towards the client, and its eth0's. */
    const towardsClient = () => {
      const counter = (name: string) => {
        const text = net.exec('ipfd', [
          'nft',
          'list',
          'counter',
          'netdev',
          COUNT_TABLE,
          name,
        ]).stdout;
        const m = /packets (\d+) bytes (\d+)/.exec(text);
        if (!m) throw new Error(`ipfd: no nft counter ${name}: ${text.trim()}`);
        return { packets: Number(m[1]), bytes: Number(m[2]) };
      };
      const link = (
        JSON.parse(net.sh('ipfd', ['ip', '-s', '-j', 'link', 'show', 'eth0'])) as {
          stats64: { rx: { bytes: number }; tx: { bytes: number } };
        }[]
      )[0]!.stats64;
      const to = counter('to_client');
      return {
        packets: to.packets,
        bytes: to.bytes,
        fromTsaBytes: counter('from_tsa').bytes,
        linkRxBytes: link.rx.bytes,
        linkTxBytes: link.tx.bytes,
      };
    };
    const delta = (a: TowardsClient, b: TowardsClient): TowardsClient => ({
      packets: b.packets - a.packets,
      bytes: b.bytes - a.bytes,
      fromTsaBytes: b.fromTsaBytes - a.fromTsaBytes,
      linkRxBytes: b.linkRxBytes - a.linkRxBytes,
      linkTxBytes: b.linkTxBytes - a.linkTxBytes,
    });
    const crossing: { kind: 'conn' | 'bulk'; seq: number; sent: number; counted: TowardsClient }[] =
      [];

    ctx.log(`dataplane: every path forwards (${elapsed()})`);
    // Warm-up: JIT, ARP, first connections of every path.
    for (const path of paths) {
      await connRun(path, 1);
      forgetKernelConnections(path);
    }
    // What each middlebox uses with no traffic (timers, heartbeats, health checks): it runs
    // through every measurement, the baseline included, so it cancels out of the costs.
    await sleep(1000);
    const idle = await measure(() => sleep(IDLE_SECONDS * 1000));

    const conns: ConnRun[] = [];
    const bulks: BulkRun[] = [];
    // Each path's run sits between two baseline runs (B W B X B Y B Z B W …), and its cost is
    // taken against their mean, so that a drift in the machine's load cancels; the order of W, X,
    // Y, Z rotates each round.
    ctx.log(`dataplane: warmed up, idle use measured (${elapsed()})`);
    const sequence: { path: Path; round: number }[] = [{ path: 'baseline', round: 0 }];
    for (let r = 0; r < settings.rounds; r++)
      for (let i = 0; i < middleboxes.length; i++)
        sequence.push(
          { path: middleboxes[(i + r) % middleboxes.length]!, round: r },
          { path: 'baseline', round: r },
        );
    for (const [seq, { path, round: r }] of sequence.entries()) {
      // The counters are read outside the measured window (their commands cost CPU too).
      let before = path === 'direct' ? towardsClient() : null;
      const c = await connRun(path, settings.connSeconds);
      if (before)
        crossing.push({
          kind: 'conn',
          seq,
          sent: c.value.ok * 100,
          counted: delta(before, towardsClient()),
        });
      conns.push({ path, round: r, seq, cpu: c.cpu, ...c.value });
      forgetKernelConnections(path);
      const tag = `dataplane ${seq + 1}/${sequence.length} ${path} (${elapsed()})`;
      ctx.log(
        `${tag}: ${c.value.ok} conns (${c.value.failed} failed), p99 ${round((c.value.p99Us ?? NaN) / 1000, 2)} ms, ` +
          `system ${round(c.cpu.systemUs / c.value.ok)} µs/conn, own ${round((c.cpu.ownUs ?? NaN) / c.value.ok)} µs/conn, others ${round((c.cpu.othersUs ?? NaN) / 1000)} ms`,
      );
      await sleep(300);
      before = path === 'direct' ? towardsClient() : null;
      const b = await bulkRun(path);
      if (before)
        crossing.push({
          kind: 'bulk',
          seq,
          sent: b.value.bytes,
          counted: delta(before, towardsClient()),
        });
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
    const result = summarize(settings, middleboxes, conns, bulks, idle.cpu, crossing, {
      kernelOn,
      directOn,
      haproxyMissing,
    });
    for (const key of Object.keys(result).filter((k) => /UsPer|CostRatio$|ThroughIpfe$/.test(k))) {
      const note = result[`${key}Note`];
      if (result[key] === null || typeof result[key] === 'number')
        ctx.log(
          `dataplane ${key}: ${result[key] === null && note ? String(note) : String(result[key])}`,
        );
    }
    return result;
  } finally {
    net.remove();
    removeSubgroups();
    removeGroup();
    removeDir();
  }
}

/**
 * Cost per connection and per MB of each path, minus the baseline runs' around it; medians over
 * rounds, each with the resolution of the method (bench/lib/resolution.ts).
 */
function summarize(
  settings: DataplaneSettings,
  middleboxes: readonly Middlebox[],
  conns: ConnRun[],
  bulks: BulkRun[],
  idle: Run['cpu'],
  crossing: { kind: 'conn' | 'bulk'; seq: number; sent: number; counted: TowardsClient }[],
  info: { kernelOn: boolean; directOn: boolean; haproxyMissing: string | null },
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
  /** Per round: the path's cost minus the mean of the two baseline runs around it. */
  const costs = <R extends Run>(
    runs: R[],
    path: Middlebox,
    fn: (run: R, measure: Measure) => number,
    measure: Measure,
  ) =>
    runs
      .filter((run) => run.path === path)
      .map((run) => {
        const around = runs.filter((d) => d.path === 'baseline' && Math.abs(d.seq - run.seq) === 1);
        return fn(run, measure) - around.reduce((a, d) => a + fn(d, measure), 0) / around.length;
      });
  const baselineSeries = <R extends Run>(
    runs: R[],
    fn: (run: R, measure: Measure) => number,
    measure: Measure,
  ) =>
    runs
      .filter((run) => run.path === 'baseline')
      .sort((a, b) => a.seq - b.seq)
      .map((run) => fn(run, measure));
  const p99 = (path: Path) =>
    median(conns.filter((c) => c.path === path).map((c) => (c.p99Us ?? NaN) / 1000));
  const p50 = (path: Path) =>
    median(conns.filter((c) => c.path === path).map((c) => (c.p50Us ?? NaN) / 1000));
  /** A middlebox's own process (agent or HAProxy) CPU per connection / per MB, its idle use deducted. */
  const idleRate = (path: Middlebox) => (idle.groups[path] ?? NaN) / idle.wallUs;
  const processCosts = (path: Middlebox, kind: 'conn' | 'bulk', runsOf: Path) =>
    (kind === 'conn' ? conns : bulks)
      .filter((c) => c.path === runsOf)
      .map((run) => {
        const us = run.cpu.groups[path];
        const units = kind === 'conn' ? (run as ConnRun).ok : (run as BulkRun).bytes / 1e6;
        return us === null || us === undefined
          ? NaN
          : (us - idleRate(path) * run.cpu.wallUs) / units;
      });

  interface Figure {
    median: number;
    min: number;
    max: number;
    resolution: number | null;
  }
  type Figures = Record<string, Figure>;
  const figures: Record<Measure, Figures> = { systemUs: {}, ownUs: {} };
  const resolutions: Record<Measure, { conn: number | null; mb: number | null }> = {
    systemUs: { conn: null, mb: null },
    ownUs: { conn: null, mb: null },
  };
  for (const measure of ['systemUs', 'ownUs'] as const) {
    const res = {
      conn: resolutionOf(baselineSeries(conns, perConn, measure), settings.rounds),
      mb: resolutionOf(baselineSeries(bulks, perMB, measure), settings.rounds),
    };
    resolutions[measure] = res;
    for (const m of middleboxes) {
      for (const [key, values, resolution] of [
        [`${m}UsPerConn`, costs(conns, m, perConn, measure), res.conn],
        [`${m}UsPerMB`, costs(bulks, m, perMB, measure), res.mb],
      ] as const) {
        figures[measure][key] = {
          median: median(values),
          min: Math.min(...values),
          max: Math.max(...values),
          resolution,
        };
      }
    }
  }

  /** A cost: its figure, or null with `…BelowResolution` and `…Note` when within the noise. */
  const put = (target: Record<string, unknown>, key: string, f: Figure, unit: string) => {
    const r = resolve(f.median, f.resolution, unit);
    target[key] = r.value;
    if (r.belowResolution) {
      target[`${key}BelowResolution`] = true;
      target[`${key}Note`] = r.note;
    }
  };
  /**
   * HAProxy's cost ÷ ours, with its range from both resolutions; none where ours is within its
   * resolution (then `…AtLeast`, the bound its resolution allows). `connCostRatio` and
   * `byteCostRatio` (issue 8) compare HAProxy with the cheaper of the NAT paths (kernel, user
   * space); the direct path has keys of its own.
   */
  const ratios = (f: Figures, target: Record<string, unknown>) => {
    const one = (key: string, unit: 'Conn' | 'MB', ours: Middlebox | null) => {
      const theirs = f[`haproxyUsPer${unit}`];
      const mine = ours ? f[`${ours}UsPer${unit}`] : undefined;
      if (!theirs || !mine) {
        target[key] = null;
        return;
      }
      const r = costRatio(theirs, mine);
      target[key] = r.value;
      if (r.range) target[`${key}Range`] = r.range;
      if (r.belowResolution) {
        target[`${key}BelowResolution`] = true;
        target[`${key}Note`] = r.note;
        if (r.atLeast !== null) target[`${key}AtLeast`] = r.atLeast;
      }
    };
    const cheapest = (unit: 'Conn' | 'MB') =>
      (['kernel', 'userspace'] as const)
        .filter((m) => f[`${m}UsPer${unit}`])
        .sort((a, b) => f[`${a}UsPer${unit}`]!.median - f[`${b}UsPer${unit}`]!.median)[0] ?? null;
    const conn = cheapest('Conn');
    const byte = cheapest('MB');
    target.bestPath = conn;
    target.bestPathPerMB = byte;
    one('connCostRatio', 'Conn', conn);
    one('byteCostRatio', 'MB', byte);
    for (const m of ['direct', 'kernel', 'userspace'] as const) {
      if (!middleboxes.includes(m)) continue;
      one(`${m}ConnCostRatio`, 'Conn', m);
      one(`${m}ByteCostRatio`, 'MB', m);
    }
  };

  const result: Record<string, unknown> = {};
  // The keys come from the benchmark's own processes when the cpuacct group exists: on a machine
  // shared with other work the system-wide delta is mostly that other work (see docs/benchmarks.md).
  const own = conns.every((c) => c.cpu.ownUs !== null);
  const headline = own ? figures.ownUs : figures.systemUs;
  const headlineResolution = own ? resolutions.ownUs : resolutions.systemUs;
  for (const m of middleboxes) {
    put(result, `${m}UsPerConn`, headline[`${m}UsPerConn`]!, 'µs/conn');
    put(result, `${m}UsPerMB`, headline[`${m}UsPerMB`]!, 'µs/MB');
    result[`${m}P99Ms`] = round(p99(m), 3);
  }
  ratios(headline, result);

  // What the servers sent towards the client that reached the direct path's IPFE (goal: none).
  const sum = (kind: 'conn' | 'bulk', field: keyof TowardsClient) =>
    crossing.filter((c) => c.kind === kind).reduce((a, c) => a + c.counted[field], 0);
  const sent = (kind: 'conn' | 'bulk') =>
    crossing.filter((c) => c.kind === kind).reduce((a, c) => a + c.sent, 0);
  if (middleboxes.includes('direct')) {
    result.directResponseBytesThroughIpfe = sum('bulk', 'bytes');
    result.directTrafficThroughIpfe = {
      note: 'summed over the direct path’s runs: bytes addressed to the client that arrived on the direct IPFE’s eth0 (an nft netdev ingress counter before the agent’s chain), of them with a TSA as source (the servers’ replies); the IPFE’s eth0 received and sent (ip -s link) beside what the client sent',
      bulk: {
        towardsClientPackets: sum('bulk', 'packets'),
        towardsClientBytes: sum('bulk', 'bytes'),
        fromTsaBytes: sum('bulk', 'fromTsaBytes'),
        clientSentBytes: sent('bulk'),
        linkRxBytes: sum('bulk', 'linkRxBytes'),
        linkTxBytes: sum('bulk', 'linkTxBytes'),
      },
      conn: {
        towardsClientPackets: sum('conn', 'packets'),
        towardsClientBytes: sum('conn', 'bytes'),
        fromTsaBytes: sum('conn', 'fromTsaBytes'),
        clientSentPayloadBytes: sent('conn'),
        linkRxBytes: sum('conn', 'linkRxBytes'),
        linkTxBytes: sum('conn', 'linkTxBytes'),
      },
    };
  }

  result.resolution = {
    usPerConn: round(headlineResolution.conn ?? NaN, 1),
    usPerMB: round(headlineResolution.mb ?? NaN, 1),
    method: `two standard errors of a median of ${settings.rounds} rounds’ costs when a path costs nothing (bench/lib/resolution.ts): σ of one run from the differences of successive baseline runs (1.4826 × median |difference| ÷ √2), a cost (a run minus the mean of two) σ·√1.5, resolution 2·√(π/2)·σ·√1.5 ÷ √rounds. A cost at or below it is null, with …BelowResolution and …Note, and makes no ratio (…AtLeast: the bound it allows); a ratio’s …Range comes from both costs’ resolutions. middleboxProcess: from the process’s CPU in the baseline runs, where it carries no traffic`,
  };
  const ranges = (f: Figures) =>
    Object.fromEntries(
      Object.entries(f).map(([k, v]) => [
        k,
        { median: round(v.median, 1), min: round(v.min, 1), max: round(v.max, 1) },
      ]),
    );
  result.costRangesOverRounds = ranges(headline);
  const best = result.bestPath as Middlebox | null;
  result.p99Ratio =
    best && middleboxes.includes('haproxy') ? round(p99('haproxy') / p99(best), 2) : null;
  result.baselineP50Ms = round(p50('baseline'), 3);
  result.baselineP99Ms = round(p99('baseline'), 3);
  for (const m of middleboxes) result[`${m}P50Ms`] = round(p50(m), 3);
  const others = [...conns, ...bulks].map((c) => (c.cpu.othersUs ?? NaN) / c.cpu.wallUs);
  result.method = own
    ? 'CPU of the benchmark’s own processes (a cpuacct cgroup: client, servers, agents, HAProxy, what they spawn, softirq work done in their context) plus the ksoftirqd threads, per run, minus the baseline’s (client straight to the servers) around it; median over rounds'
    : 'system-wide busy CPU from /proc/stat per run, minus the baseline’s (client straight to the servers) around it; median over rounds';
  const systemWide: Record<string, unknown> = {
    note: 'the issue’s method: system-wide busy CPU from /proc/stat minus the baseline’s. Other work on the machine is in it (see othersCpuCores)',
  };
  for (const m of middleboxes) {
    put(systemWide, `${m}UsPerConn`, figures.systemUs[`${m}UsPerConn`]!, 'µs/conn');
    put(systemWide, `${m}UsPerMB`, figures.systemUs[`${m}UsPerMB`]!, 'µs/MB');
  }
  ratios(figures.systemUs, systemWide);
  Object.assign(systemWide, {
    resolutionUsPerConn: round(resolutions.systemUs.conn ?? NaN, 1),
    resolutionUsPerMB: round(resolutions.systemUs.mb ?? NaN, 1),
    othersCpuCoresMedian: round(median(others), 2),
    othersCpuCoresMax: round(Math.max(...others), 2),
  });
  result.systemWide = systemWide;
  // A middlebox's own process carries none of the baseline's traffic: its CPU in the baseline
  // runs (idle use deducted), per unit of that traffic, is what nil looks like.
  result.middleboxProcess = Object.fromEntries(
    middleboxes.map((m) => {
      const entry: Record<string, unknown> = {};
      for (const [key, kind, unit] of [
        ['usPerConn', 'conn', 'µs/conn'],
        ['usPerMB', 'bulk', 'µs/MB'],
      ] as const) {
        const resolution = nilResolution(processCosts(m, kind, 'baseline'), settings.rounds);
        const values = processCosts(m, kind, m);
        put(entry, key, { median: median(values), min: NaN, max: NaN, resolution }, unit);
        entry[`${key}Resolution`] = round(resolution ?? NaN, 1);
      }
      entry.idleCpuPct = round(100 * idleRate(m), 2);
      entry.kernelSidePctInConnRuns = round(
        median(conns.filter((c) => c.path === m).map((c) => 100 * (c.cpu.kernelSide[m] ?? NaN))),
        0,
      );
      return [m, entry];
    }),
  );
  result.settings = {
    ...settings,
    requestBytes: 100,
    sequence:
      'a baseline run (client straight to the servers) before and after every other run (B W B X B Y B Z B …, W/X/Y/Z rotating per round); a path’s cost in a round is its run minus the mean of the two baseline runs around it',
    clientAndService: 'bench/drivers/loadgen.c and echo.c (C, epoll), built with cc -O2',
    topology:
      'network namespaces: client, 3 servers (reporter holding the direct path’s TSAs with --hold-tsa; echo and iperf3 on their own address and on those TSAs), 4 IPFE hosts (agent user space, agent kernel, agent direct, HAProxy) on one bridge',
    kernelPathProgrammed: info.kernelOn,
    directPathProgrammed: info.directOn,
    haproxy:
      info.haproxyMissing ?? 'HAProxy TCP mode, nbthread 1, roundrobin, check port 9675 inter 1s',
    algorithm: 'hash (Maglev) over s1, s2; the bulk Target Set has s3 alone',
    flushedAfterEachRun:
      'the kernel path’s conntrack table and the direct path’s flow records (their agents list them periodically; left over, that work would be billed to the next runs)',
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
      ...middleboxOf(c),
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
      ...middleboxOf(b),
      ...(b.path === 'direct'
        ? {
            towardsClientBytesAtIpfe: crossing.find((c) => c.kind === 'bulk' && c.seq === b.seq)
              ?.counted.bytes,
          }
        : {}),
    })),
  };
  return result;
}
