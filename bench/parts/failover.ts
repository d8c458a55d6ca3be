/**
 * SIGKILL the active agent and time until the first new connection succeeds through its mate;
 * and whether the connections open at the kill go on exchanging data through the mate. One entry
 * per data path in bench/results/failover.json (`{ kernel: { p50Ms, p99Ms, survivedPct, trials,
 * … } }`): each path's trials run in a topology of their own (client, A1, A2, two servers in
 * network namespaces), mates beaconing every 50 ms, mate timeout 150 ms.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_TOKEN, benchDocument, persistFor } from '../lib/config.ts';
import { onCleanup } from '../lib/cleanup.ts';
import { startEchoServers, startFailoverClient } from '../lib/failover-hosts.ts';
import { BenchNet, netnsAvailable } from '../lib/netns.ts';
import { ROOT } from '../lib/results.ts';
import { median, percentile, round, sleep, until } from '../lib/stats.ts';
import { ensureTools } from '../lib/tools.ts';
import type { PartContext } from './context.ts';

const SUBNET = '10.232.2';
const HOSTS = {
  client: `${SUBNET}.50`,
  a1: `${SUBNET}.11`,
  a2: `${SUBNET}.12`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
};
const TSA = `${SUBNET}.100`;
const PORT = 3868;
const HELD = 10;
const HELD_AGE_MS = 1000;
const AGENT_BIN = join(ROOT, 'apps/agent/bin/ipfe-agent.js');

/** A data path whose failover is measured: how its agents (and, if it needs, its servers) run. */
export interface FailoverPath {
  /** Its entry in failover.json. */
  name: string;
  /** The agent's data-path flags (after --slot, --control and --state-dir), e.g. `--dataplane kernel`. */
  agentFlags: string[];
  /** Extra flags of each server's reporter (e.g. to hold the TSA, for a path that needs it). */
  serverFlags?: string[];
  /** Binaries the path needs, with their Debian packages. */
  tools?: Record<string, string>;
}

/** The NAT kernel path: nftables DNAT + SNAT to the TSA, conntrack state shared by conntrackd. */
export const KERNEL_PATH: FailoverPath = {
  name: 'kernel',
  agentFlags: ['--dataplane', 'kernel', '--manage-addresses', 'eth0', '--sync-conntrack'],
  tools: { conntrack: 'conntrack', conntrackd: 'conntrackd' },
};

/** The direct path: packets unchanged to servers holding the TSA, flow records told to the mate. */
export const DIRECT_PATH: FailoverPath = {
  name: 'direct',
  agentFlags: ['--dataplane', 'direct', '--manage-addresses', 'eth0'],
  serverFlags: ['--hold-tsa', TSA],
};

export const FAILOVER_PATHS: FailoverPath[] = [KERNEL_PATH, DIRECT_PATH];

const METHOD =
  'per path, in a topology of its own; per trial: A1 alone holds and forwards the TSA (the client’s ARP entry for it renewed); the client opens 10 connections through it and holds them; 1 s later, SIGKILL of A1’s agent (process group), then a new connection every 5 ms (1 s timeout each) until one is forwarded by A2 (the address the server sees, else the client’s ARP entry for the TSA); then each held connection sends a token and must get its echo within 1 s, twice (a survivor answers both); A1 is restarted and takes the TSA back before the next trial. failoverMs is the time from the kill to that first connection through A2; p99 is the nearest rank (of 20 trials: the slowest).';

export async function runFailover(ctx: PartContext): Promise<Record<string, unknown>> {
  if (!netnsAvailable)
    return { skipped: 'needs root and `ip netns` (iproute2): not measured on this machine' };
  const missing = ensureTools({ nft: 'nftables', arping: 'iputils-arping' });
  if (missing) return { skipped: missing };
  const trials = ctx.quick ? 5 : 20;
  const result: Record<string, unknown> = {};
  for (const path of FAILOVER_PATHS) {
    const lacking = path.tools ? ensureTools(path.tools) : null;
    result[path.name] = lacking
      ? { skipped: lacking }
      : await failoverTrials(ctx, path, trials, `nfbf${path.name.slice(0, 1)}`);
  }
  return {
    ...result,
    method: METHOD,
    settings: {
      mateIntervalMs: 50,
      mateTimeoutMs: 150,
      heldPerTrial: HELD,
      heldAgeMs: HELD_AGE_MS,
      topology: 'network namespaces: client, A1, A2, s1, s2 on one bridge (one per path)',
    },
  };
}

interface Trial {
  failoverMs: number | null;
  held: number;
  survived: number;
  probes: number;
  failed: number;
  firstFailedMs: number | null;
  lastOldMs: number | null;
}

/** `trials` failovers of one data path; its figures, as failover.json holds them. */
export async function failoverTrials(
  ctx: PartContext,
  path: FailoverPath,
  trials: number,
  prefix: string,
): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), `ipfe-bench-failover-${path.name}-`));
  const removeDir = onCleanup('failover folder', () =>
    rmSync(dir, { recursive: true, force: true }),
  );
  const net = new BenchNet(prefix, HOSTS, null, ctx.log);
  try {
    startEchoServers(net, { s1: HOSTS.s1, s2: HOSTS.s2 }, PORT, path.serverFlags);
    const document = benchDocument(1, {
      ipfe: { A1: HOSTS.a1, A2: HOSTS.a2 },
      options: { mateIntervalMs: 50, mateTimeoutMs: 150, connectTimeoutS: 2 },
      xsi: `${SUBNET}.0/24`,
      servers: [HOSTS.s1, HOSTS.s2],
      targetSets: [{ number: 1, tsa: TSA, servers: [HOSTS.s1, HOSTS.s2] }],
    });
    const agents: Record<'a1' | 'a2', ChildProcess | null> = { a1: null, a2: null };
    const startAgent = (slot: 'a1' | 'a2') => {
      agents[slot] = net.run(
        slot,
        [
          process.execPath,
          AGENT_BIN,
          '--slot',
          slot.toUpperCase(),
          '--control',
          `${HOSTS[slot]}:8701`,
          '--state-dir',
          join(dir, slot),
          ...path.agentFlags,
        ],
        { IPFE_AGENT_TOKEN: BENCH_TOKEN, LOG_LEVEL: 'warn' },
      );
    };
    for (const slot of ['a1', 'a2'] as const) {
      net.sysctl(slot, 'net.ipv4.ip_forward', '1');
      for (const scope of ['all', 'default', 'eth0'])
        net.sysctl(slot, `net.ipv4.conf.${scope}.send_redirects`, '0');
      persistFor(join(dir, slot), document);
      startAgent(slot);
    }
    const client = await startFailoverClient(net, {
      tsa: TSA,
      port: PORT,
      a1: HOSTS.a1,
      a2: HOSTS.a2,
    });

    const results: (Trial & { heldVia: Record<string, number> })[] = [];
    const holds = (host: 'a1' | 'a2') =>
      net.exec(host, ['ip', '-4', 'addr', 'show', 'dev', 'eth0']).stdout.includes(`${TSA}/`);
    let aborted = 0;
    for (let t = 0; t < trials && aborted < 5; t++) {
      // A steady state first: A1 holds the TSA and A2 has let it go (a takeover adds the address
      // and announces it; an address still held by A2 would not be announced again). The
      // client forgets the TSA's MAC, so that its next ARP request finds A1 alone.
      const steady =
        (await until(
          'A1 alone to hold the TSA',
          () => holds('a1') && !holds('a2'),
          30_000,
          100,
        ).then(
          () => true,
          () => false,
        )) &&
        (net.exec('client', ['ip', 'neigh', 'del', TSA, 'dev', 'eth0']),
        (await client.ask<{ ok: boolean }>({ op: 'waitVia', via: 'a1', timeoutMs: 30_000 }, 40_000))
          .ok);
      if (!steady) {
        aborted++;
        ctx.log(
          `failover ${path.name} trial ${t + 1}: no steady state (A1 alone serving) within 30 s; A1 restarted`,
        );
        await net.stop(agents.a1!, 'SIGKILL');
        startAgent('a1');
        t--;
        continue;
      }
      await sleep(300);
      const heldVia = await client.ask<Record<string, number>>({ op: 'hold', n: HELD });
      await sleep(HELD_AGE_MS); // the held connections are established, not brand new, at the kill
      const trial = await client.ask<Trial>(
        { op: 'trial', pid: agents.a1!.pid, mate: 'a2', everyMs: 5, limitMs: 10_000 },
        30_000,
      );
      results.push({ ...trial, heldVia });
      ctx.log(
        `failover ${path.name} trial ${t + 1}/${trials}: ${trial.failoverMs === null ? 'no connection through A2 within 10 s' : `${round(trial.failoverMs, 1)} ms`}, ` +
          `${trial.survived}/${trial.held} held connections survived; ${trial.failed} of ${trial.probes} probes failed, ` +
          `the first started at ${round(trial.firstFailedMs ?? NaN, 1)} ms; the last through A1 started at ${round(trial.lastOldMs ?? NaN, 1)} ms`,
      );
      await client.ask({ op: 'drop' });
      startAgent('a1');
    }
    await client.ask({ op: 'quit' }, 2000).catch(() => undefined);
    return figures(path, results, aborted);
  } finally {
    net.remove();
    removeDir();
  }
}

function figures(path: FailoverPath, results: Trial[], aborted: number) {
  const times = results.map((r) => r.failoverMs).filter((v): v is number => v !== null);
  const held = results.reduce((a, r) => a + r.held, 0);
  const survived = results.reduce((a, r) => a + r.survived, 0);
  return {
    p50Ms: times.length ? round(percentile(times, 50), 1) : null,
    p99Ms: times.length === results.length ? round(percentile(times, 99), 1) : null,
    survivedPct: held > 0 ? round((100 * survived) / held, 1) : null,
    trials: results.length,
    trialsAbortedBeforeTheKill: aborted,
    trialsWithoutTakeover: results.length - times.length,
    meanMs: times.length ? round(times.reduce((a, b) => a + b, 0) / times.length, 1) : null,
    medianMs: round(median(times), 1),
    maxMs: times.length ? round(Math.max(...times), 1) : null,
    agentFlags: path.agentFlags.join(' '),
    trialsMs: results.map((r) => round(r.failoverMs ?? NaN, 1)),
    survivedPerTrial: results.map((r) => r.survived),
    firstFailedProbeMs: results.map((r) => round(r.firstFailedMs ?? NaN, 1)),
    lastProbeThroughA1Ms: results.map((r) => round(r.lastOldMs ?? NaN, 1)),
  };
}
