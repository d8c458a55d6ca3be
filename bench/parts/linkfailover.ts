/**
 * Issue 27 item 6: cut the active IPFE's TSA-facing link (the carrier: its port on the bridge set
 * down) and time until the first new connection succeeds through its mate; whether the
 * connections open at the cut go on through the mate, and again once the link is back and A1 has
 * taken the TSA back. The mates beacon over an internal network of their own (eth1), so A1 stays
 * alive to A2 all along: only what A1 says of its link moves the TSA (decision 028). One entry
 * per data path in bench/results/linkfailover.json, and over both: `linkFailoverMs` p50/p99 and
 * `linkFailoverSurvivedPct`.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addSecondNetwork, setBridgePort } from '../../apps/agent/test/sctp/sctp-peer.ts';
import { BENCH_TOKEN, benchDocument, persistFor } from '../lib/config.ts';
import { onCleanup } from '../lib/cleanup.ts';
import { startEchoServers, startFailoverClient } from '../lib/failover-hosts.ts';
import { BenchNet, netnsAvailable } from '../lib/netns.ts';
import { ROOT } from '../lib/results.ts';
import { median, percentile, round, sleep, until } from '../lib/stats.ts';
import { ensureTools } from '../lib/tools.ts';
import type { PartContext } from './context.ts';

const SUBNET = '10.232.5';
/** The mates' internal network (beacons, conntrackd, flow records, control). */
const INTERNAL = '10.232.7';
const HOSTS = {
  client: `${SUBNET}.50`,
  a1: `${SUBNET}.11`,
  a2: `${SUBNET}.12`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
  gw: `${SUBNET}.1`,
};
const MATES = { a1: `${INTERNAL}.11`, a2: `${INTERNAL}.12` };
const TSA = `${SUBNET}.100`;
const PORT = 3868;
const HELD = 10;
const HELD_AGE_MS = 1000;
const AGENT_BIN = join(ROOT, 'apps/agent/bin/ipfe-agent.js');
/** The agents' watch of their link: the carrier every 50 ms, the next hop every 100 ms. */
const LINK_FLAGS = ['--next-hop', HOSTS.gw, '--next-hop-interval-ms', '100'];

interface LinkPath {
  name: 'kernel' | 'direct';
  agentFlags: string[];
  serverFlags: string[];
  tools: Record<string, string>;
}

const PATHS: LinkPath[] = [
  {
    name: 'kernel',
    agentFlags: ['--dataplane', 'kernel', '--manage-addresses', 'eth0', '--sync-conntrack'],
    serverFlags: [],
    tools: { conntrack: 'conntrack', conntrackd: 'conntrackd' },
  },
  {
    name: 'direct',
    agentFlags: ['--dataplane', 'direct', '--manage-addresses', 'eth0'],
    serverFlags: ['--hold-tsa', TSA],
    tools: {},
  },
];

const METHOD =
  'per path, in a topology of its own: client, A1, A2, s1, s2 and the next hop gw on one bridge (eth0, the TSA-facing link), A1 and A2 also on a second bridge of their own (eth1: beacons every 50 ms, mate timeout 150 ms, conntrackd or flow records); each agent probes gw every 100 ms (down after 3 misses) and reads its carrier every 50 ms. Per trial: A1 alone holds and forwards the TSA (the client’s ARP entry for it renewed); the client opens 10 connections through it and holds them (a trial where not all go through A1 is not run: counted in trialsAbortedBeforeTheCut, and tried again); 1 s later the client sets A1’s port on the bridge down (A1’s eth0 loses its carrier), then opens a new connection every 5 ms (1 s timeout each) until one is forwarded by A2 (by the client’s ARP entry for the TSA); then each held connection sends a token and must get its echo within 1 s, twice. The port is set up again; once A1 alone holds the TSA again (after the 2 s hold-off) and forwards a new connection, each held connection is asked twice again (returnSurvivedPct). linkFailoverMs is the time from the cut (before the `ip link` command runs) to that first connection through A2; p99 is the nearest rank (of 20 trials per path: the slowest).';

export async function runLinkFailover(ctx: PartContext): Promise<Record<string, unknown>> {
  if (!netnsAvailable)
    return { skipped: 'needs root and `ip netns` (iproute2): not measured on this machine' };
  const missing = ensureTools({ nft: 'nftables', arping: 'iputils-arping' });
  if (missing) return { skipped: missing };
  const trials = ctx.quick ? 3 : 20;
  const result: Record<string, unknown> = {};
  const all: Trial[] = [];
  for (const path of PATHS) {
    const lacking = ensureTools(path.tools);
    if (lacking) {
      result[path.name] = { skipped: lacking };
      continue;
    }
    const trialsOfPath = await linkTrials(ctx, path, trials, `nfbl${path.name.slice(0, 1)}`);
    all.push(...trialsOfPath.trials);
    result[path.name] = figures(path, trialsOfPath.trials, trialsOfPath.aborted);
  }
  const summary = figures(null, all, 0);
  return {
    linkFailoverMs: summary.linkFailoverMs,
    linkFailoverSurvivedPct: summary.linkFailoverSurvivedPct,
    linkReturnSurvivedPct: summary.linkReturnSurvivedPct,
    ...result,
    method: METHOD,
    settings: {
      mateIntervalMs: 50,
      mateTimeoutMs: 150,
      nextHopIntervalMs: 100,
      nextHopMisses: 3,
      heldPerTrial: HELD,
      heldAgeMs: HELD_AGE_MS,
    },
  };
}

interface Trial {
  /** The IPFE the client's ARP entry for the TSA named just before the cut. */
  arpBefore: string;
  /** Through which IPFE the held connections went, by the client's ARP entry when each opened. */
  heldVia: Record<string, number>;
  failoverMs: number | null;
  held: number;
  survived: number;
  /** Held connections alive after A1 took the TSA back (null: it did not within 30 s). */
  returnSurvived: number | null;
  probes: number;
  failed: number;
  /** Kernel path: the connections A2's conntrackd held in its external cache just before the cut. */
  mateKnew: number | null;
}

async function linkTrials(
  ctx: PartContext,
  path: LinkPath,
  trials: number,
  prefix: string,
): Promise<{ trials: Trial[]; aborted: number }> {
  const dir = mkdtempSync(join(tmpdir(), `ipfe-bench-linkfailover-${path.name}-`));
  const removeDir = onCleanup('link failover folder', () =>
    rmSync(dir, { recursive: true, force: true }),
  );
  const net = new BenchNet(prefix, HOSTS, null, ctx.log);
  try {
    addSecondNetwork(net.topology, MATES);
    startEchoServers(net, { s1: HOSTS.s1, s2: HOSTS.s2 }, PORT, path.serverFlags);
    const document = benchDocument(1, {
      ipfe: { A1: MATES.a1, A2: MATES.a2 },
      options: { mateIntervalMs: 50, mateTimeoutMs: 150, connectTimeoutS: 2 },
      xsi: `${SUBNET}.0/24`,
      servers: [HOSTS.s1, HOSTS.s2],
      targetSets: [{ number: 1, tsa: TSA, servers: [HOSTS.s1, HOSTS.s2] }],
    });
    const agents: ChildProcess[] = [];
    for (const slot of ['a1', 'a2'] as const) {
      net.sysctl(slot, 'net.ipv4.ip_forward', '1');
      for (const scope of ['all', 'default', 'eth0'])
        net.sysctl(slot, `net.ipv4.conf.${scope}.send_redirects`, '0');
      persistFor(join(dir, slot), document);
      agents.push(
        net.run(
          slot,
          [
            process.execPath,
            AGENT_BIN,
            '--slot',
            slot.toUpperCase(),
            '--control',
            `${MATES[slot]}:8701`,
            '--state-dir',
            join(dir, slot),
            ...path.agentFlags,
            ...LINK_FLAGS,
          ],
          { IPFE_AGENT_TOKEN: BENCH_TOKEN, LOG_LEVEL: 'warn' },
        ),
      );
    }
    const client = await startFailoverClient(net, {
      tsa: TSA,
      port: PORT,
      a1: HOSTS.a1,
      a2: HOSTS.a2,
    });
    const holds = (host: 'a1' | 'a2') =>
      net.exec(host, ['ip', '-4', 'addr', 'show', 'dev', 'eth0']).stdout.includes(`${TSA}/`);
    /** A1 alone holds the TSA, and the client (its ARP entry renewed) connects through A1. */
    const servedByA1 = async () =>
      (await until('A1 alone to hold the TSA', () => holds('a1') && !holds('a2'), 30_000, 100).then(
        () => true,
        () => false,
      )) &&
      (net.exec('client', ['ip', 'neigh', 'del', TSA, 'dev', 'eth0']),
      (await client.ask<{ ok: boolean }>({ op: 'waitVia', via: 'a1', timeoutMs: 30_000 }, 40_000))
        .ok);
    const cut = ['ip', '-n', net.topology.ns('sw'), 'link', 'set', `${prefix}a1p`, 'down'];

    const results: Trial[] = [];
    let aborted = 0;
    for (let t = 0; t < trials && aborted < 3; t++) {
      if (!(await servedByA1())) {
        aborted++;
        ctx.log(`link failover ${path.name} trial ${t + 1}: A1 not alone serving within 30 s`);
        t--;
        continue;
      }
      await sleep(300);
      const heldVia = await client.ask<Record<string, number>>({ op: 'hold', n: HELD });
      if (heldVia.a1 !== HELD) {
        // The client's ARP entry moved to A2 after it connected through A1 (the mates' start-up,
        // when both may serve for a moment): cutting A1's link would measure nothing.
        aborted++;
        ctx.log(
          `link failover ${path.name} trial ${t + 1}: held connections went ${JSON.stringify(heldVia)}, not all through A1`,
        );
        await client.ask({ op: 'drop' });
        t--;
        continue;
      }
      await sleep(HELD_AGE_MS);
      const mateKnew = path.name === 'kernel' ? externalCache(net, join(dir, 'a2')) : null;
      const trial = await client.ask<Omit<Trial, 'returnSurvived' | 'mateKnew' | 'heldVia'>>(
        { op: 'trial', cut, mate: 'a2', everyMs: 5, limitMs: 10_000 },
        30_000,
      );
      setBridgePort(net.topology, 'a1', 'eth0', true);
      const back = await servedByA1();
      const returned = back
        ? (await client.ask<{ alive: number }>({ op: 'heldAlive' }, 10_000)).alive
        : null;
      results.push({ ...trial, heldVia, returnSurvived: returned, mateKnew });
      ctx.log(
        `link failover ${path.name} trial ${t + 1}/${trials}: ${trial.failoverMs === null ? 'no connection through A2 within 10 s' : `${round(trial.failoverMs, 1)} ms`}, ` +
          `${trial.survived}/${trial.held} held connections survived; after A1 took the TSA back ${returned ?? 'not back within 30 s'}; ` +
          `${trial.failed} of ${trial.probes} probes failed; held via ${JSON.stringify(heldVia)}, ARP at the cut: ${trial.arpBefore}` +
          (mateKnew === null ? '' : `; A2's conntrackd knew ${mateKnew} connections at the cut`),
      );
      await client.ask({ op: 'drop' });
    }
    await client.ask({ op: 'quit' }, 2000).catch(() => undefined);
    for (const agent of agents) await net.stop(agent);
    return { trials: results, aborted };
  } finally {
    net.remove();
    removeDir();
  }
}

/** The connections in the external cache (the mate's) of the conntrackd of the agent at `stateDir`. */
function externalCache(net: BenchNet, stateDir: string): number | null {
  const { stdout } = net.exec('a2', [
    'conntrackd',
    '-C',
    join(stateDir, 'conntrackd.conf'),
    '-s',
    'cache',
  ]);
  const found = /cache:external\s+active objects:\s+(\d+)/.exec(stdout);
  return found ? Number(found[1]) : null;
}

function figures(path: LinkPath | null, results: Trial[], aborted: number) {
  const times = results.map((r) => r.failoverMs).filter((v): v is number => v !== null);
  const pct = (part: number, whole: number) => (whole > 0 ? round((100 * part) / whole, 1) : null);
  const held = results.reduce((a, r) => a + r.held, 0);
  const returnedHeld = results.reduce((a, r) => a + (r.returnSurvived === null ? 0 : r.held), 0);
  return {
    linkFailoverMs: {
      p50: times.length ? round(percentile(times, 50), 1) : null,
      // A trial without a takeover has no time: no p99 then, rather than a flattering one.
      p99: times.length === results.length && times.length ? round(percentile(times, 99), 1) : null,
      median: round(median(times), 1),
      max: times.length ? round(Math.max(...times), 1) : null,
      trials: results.length,
    },
    linkFailoverSurvivedPct: pct(
      results.reduce((a, r) => a + r.survived, 0),
      held,
    ),
    linkReturnSurvivedPct: pct(
      results.reduce((a, r) => a + (r.returnSurvived ?? 0), 0),
      returnedHeld,
    ),
    ...(path
      ? {
          trialsAbortedBeforeTheCut: aborted,
          trialsWithoutTakeover: results.length - times.length,
          trialsWithoutReturn: results.filter((r) => r.returnSurvived === null).length,
          agentFlags: [...path.agentFlags, ...LINK_FLAGS].join(' '),
          trialsMs: results.map((r) => round(r.failoverMs ?? NaN, 1)),
          survivedPerTrial: results.map((r) => r.survived),
          returnSurvivedPerTrial: results.map((r) => r.returnSurvived),
          ...(path.name === 'kernel' ? { mateKnewPerTrial: results.map((r) => r.mateKnew) } : {}),
        }
      : {}),
  };
}
