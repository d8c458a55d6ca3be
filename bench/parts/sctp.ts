/**
 * SCTP on the direct (transparent) data path (issue 15), with real usrsctp endpoints
 * (apps/agent/test/sctp/sctp-peer.ts). Namespaces on two bridges: a client, the IPFE A1 on the
 * first network, B1 on both (the secondary TSA's active IPFE), three servers on both, each holding
 * every TSA (the reporter's --hold-tsa).
 *
 * - Rate: associations opened and closed per second through A1 (client → TSA → s1, which holds
 *   it) and straight to s1's own address (no IPFE), alternating in one run: the same two usrsctp
 *   servers run in s1 throughout (every usrsctp process of a namespace reads all its SCTP
 *   packets), so that the two differ by the IPFE's hop only.
 * - Multihoming: associations to a Target Set over s2 and s3 (IP lists of two Target Sets are
 *   identical or disjoint) whose primary TSA is served by A1 and its secondary by B1; A1's agent is SIGKILLed; an association survives when it goes on, on the same server,
 *   through B1 (the secondary path), with nothing lost or opened again on either side.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addSecondNetwork,
  buildSctpPeer,
  linesOf,
  runSctpRate,
  sctpPeerUnavailable,
  startSctpClient,
  startSctpServer,
  waitForLine,
  type AssociationStats,
  type SctpServer,
} from '../../apps/agent/test/sctp/sctp-peer.ts';
import {
  countedInCommand,
  packetsTowards,
  twoNetworkBase,
} from '../../apps/agent/test/direct-hosts.ts';
import { onCleanup } from '../lib/cleanup.ts';
import { BENCH_TOKEN, persistFor } from '../lib/config.ts';
import { BenchNet, netnsAvailable } from '../lib/netns.ts';
import { ROOT } from '../lib/results.ts';
import { median, round, sleep, until } from '../lib/stats.ts';
import { ensurePackage, ensureTools } from '../lib/tools.ts';
import { configurationShape } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import type { PartContext } from './context.ts';

const A = '10.232.3';
const B = '10.232.4';
const SERVERS = ['s1', 's2', 's3'] as const;
const MH_SERVERS = ['s2', 's3'] as const;
type MhServer = (typeof MH_SERVERS)[number];
const HOSTS = {
  client: `${A}.50`,
  a1: `${A}.11`,
  b1: `${A}.13`,
  s1: `${A}.21`,
  s2: `${A}.22`,
  s3: `${A}.23`,
};
const SECOND = { client: `${B}.50`, b1: `${B}.13`, s1: `${B}.21`, s2: `${B}.22`, s3: `${B}.23` };
/** Target Set 1 (SCTP, single-homed, through A1, to s1) and 2 (multihomed: A1 and B1, s2, s3). */
const TSA = `${A}.100`;
const TSA_MH = `${A}.101`;
const TSA_MH2 = `${B}.101`;
const PORT = { rate: 3868, baseline: 3878, multihomed: 3870 };

export interface SctpSettings {
  /** Rate runs of each kind (direct, baseline), alternating; seconds each; threads of the client. */
  rateRounds: number;
  rateSeconds: number;
  parallel: number;
  /** SIGKILLs of A1, and multihomed associations held through each. */
  trials: number;
  associationsPerTrial: number;
}

export const SCTP_DEFAULTS: SctpSettings = {
  rateRounds: 3,
  rateSeconds: 3,
  parallel: 4,
  trials: 10,
  associationsPerTrial: 4,
};

const config = configurationShape.parse({
  ...twoNetworkBase({
    a1: HOSTS.a1,
    b1: HOSTS.b1,
    prefixes: [A, B],
    servers: SERVERS.map((s) => ({ name: s, address: HOSTS[s], secondAddress: SECOND[s] })),
    forwardedPorts: [PORT.rate, PORT.multihomed],
  }),
  targetSets: [
    {
      number: 1,
      family: 'ipv4',
      algorithm: 'hash',
      protocols: 'sctp',
      primary: { address: TSA, activeIpfe: 'A1' },
      servers: [{ address: HOSTS.s1, weight: 1 }],
    },
    {
      number: 2,
      family: 'ipv4',
      algorithm: 'hash',
      protocols: 'sctp',
      primary: { address: TSA_MH, activeIpfe: 'A1' },
      secondary: { address: TSA_MH2, activeIpfe: 'B1' },
      servers: MH_SERVERS.map((s) => ({
        address: HOSTS[s],
        secondaryAddress: SECOND[s],
        weight: 1,
      })),
    },
  ],
});

export async function runSctp(
  ctx: PartContext,
  settings: SctpSettings,
): Promise<Record<string, unknown>> {
  if (!netnsAvailable)
    return { skipped: 'needs root and `ip netns` (iproute2): not measured on this machine' };
  const missing =
    ensureTools({ nft: 'nftables', gcc: 'gcc', curl: 'curl' }) ??
    ensurePackage('libusrsctp-dev', () => sctpPeerUnavailable() === null);
  if (missing) return { skipped: missing };
  const unavailable = sctpPeerUnavailable();
  if (unavailable) return { skipped: unavailable };
  await buildSctpPeer();

  const dir = mkdtempSync(join(tmpdir(), 'ipfe-bench-sctp-'));
  const removeDir = onCleanup('sctp folder', () => rmSync(dir, { recursive: true, force: true }));
  const net = new BenchNet('bds', HOSTS, null, ctx.log);
  try {
    addSecondNetwork(net.topology, SECOND);
    for (const s of SERVERS)
      net.run(s, [
        process.execPath,
        join(ROOT, 'packages/reporter/bin/ipfe-reporter.js'),
        '--listen',
        `${HOSTS[s]}:9675`,
        '--mps-capacity',
        '100000',
        '--connection-capacity',
        '100000',
        '--interval-ms',
        '200',
        '--hold-tsa',
        `${TSA}@eth0,${TSA_MH}@eth0,${TSA_MH2}@eth1`,
      ]);
    // usrsctp learns the host's addresses once, at start: the TSAs must be there first.
    await until(
      'every server to hold the TSAs',
      () =>
        SERVERS.every((s) =>
          net.exec(s, ['ip', '-4', 'addr', 'show']).stdout.includes(`${TSA_MH2}/`),
        ),
      20_000,
      200,
    );

    const agents: Partial<Record<'a1' | 'b1', ChildProcess>> = {};
    const startAgent = (slot: 'a1' | 'b1') => {
      const stateDir = join(dir, slot);
      persistFor(stateDir, buildDocument(1, config));
      agents[slot] = net.run(
        slot,
        [
          process.execPath,
          join(ROOT, 'apps/agent/bin/ipfe-agent.js'),
          '--slot',
          slot.toUpperCase(),
          '--control',
          `${HOSTS[slot]}:8701`,
          '--state-dir',
          stateDir,
          '--dataplane',
          'direct',
          '--manage-addresses',
          slot === 'a1' ? 'eth0' : 'eth1',
        ],
        { IPFE_AGENT_TOKEN: BENCH_TOKEN, LOG_LEVEL: 'warn' },
      );
    };
    const lastStatus: Record<string, string> = {};
    /** Whether an agent serves its TSAs with every server normal (its status, from the client). */
    const ready = (slot: 'a1' | 'b1') => {
      const out = net.exec('client', [
        'curl',
        '-s',
        '-m',
        '2',
        '-H',
        `authorization: Bearer ${BENCH_TOKEN}`,
        `http://${HOSTS[slot]}:8701/v1/status`,
      ]).stdout;
      lastStatus[slot] = out.slice(0, 1500);
      try {
        const status = JSON.parse(out) as {
          owned: unknown[];
          targetSets: { servers: { state: string }[] }[];
        };
        return (
          status.owned.length > 0 &&
          status.targetSets.every((ts) => ts.servers.every((s) => s.state === 'normal'))
        );
      } catch {
        return false;
      }
    };
    startAgent('a1');
    startAgent('b1');
    await until(
      'A1 and B1 to serve, every server normal',
      () => ready('a1') && ready('b1'),
      45_000,
      300,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; statuses: ${JSON.stringify(lastStatus)}`);
    });

    // Rate: two servers in s1, one on the TSA (through A1), one on s1's own address (baseline).
    const rateServers = [
      await startSctpServer(net, 's1', { name: 's1', port: PORT.rate, bind: [TSA], quiet: true }),
      await startSctpServer(net, 's1', {
        name: 'b1',
        port: PORT.baseline,
        bind: [HOSTS.s1],
        quiet: true,
      }),
    ];
    const rate = async (kind: 'direct' | 'baseline', seconds: number) =>
      runSctpRate(net, 'client', {
        connect: kind === 'direct' ? TSA : HOSTS.s1,
        port: kind === 'direct' ? PORT.rate : PORT.baseline,
        bind: [HOSTS.client],
        seconds,
        parallel: settings.parallel,
      });
    await rate('direct', 1); // warm-up: ARP, the servers' first associations
    await rate('baseline', 1);
    const rateRuns: { kind: 'direct' | 'baseline'; perSec: number; failed: number }[] = [];
    for (let r = 0; r < settings.rateRounds; r++) {
      for (const kind of r % 2 === 0
        ? (['baseline', 'direct'] as const)
        : (['direct', 'baseline'] as const)) {
        const got = await rate(kind, settings.rateSeconds);
        const perSec = got.associations / settings.rateSeconds;
        rateRuns.push({ kind, perSec, failed: got.failed });
        ctx.log(
          `sctp rate ${kind} ${r + 1}/${settings.rateRounds}: ${round(perSec)} associations/s (${got.failed} failed)`,
        );
      }
    }
    for (const server of rateServers) await net.stop(server.child, 'SIGTERM', 3000);

    const mhServers = {} as Record<MhServer, SctpServer>;
    for (const s of MH_SERVERS)
      mhServers[s] = await startSctpServer(net, s, {
        name: s,
        port: PORT.multihomed,
        bind: [TSA_MH, TSA_MH2],
      });
    /** Packets an agent counted towards a TSA (an element of its counted set `in4`). */
    const packetsVia = (slot: 'a1' | 'b1', tsa: string) =>
      packetsTowards(net.exec(slot, countedInCommand(slot)).stdout, tsa);
    const packetsViaB1 = () => packetsVia('b1', TSA_MH2);

    interface Trial {
      trial: number;
      associations: number;
      survived: number;
      /** The longest wait for an echo on an association from the SIGKILL on. */
      stallMs: number | null;
      /** A1's rules and TSA gone after the kill (the primary path cut), and how soon. */
      primaryCut: boolean;
      cutMs: number | null;
      /** Packets A1 forwarded towards the primary TSA in the second before the kill, echoes then. */
      viaA1BeforeKill: number;
      viaB1BeforeKill: number;
      echoedBeforeKill: number;
      /** Packets B1 forwarded towards the secondary TSA after the cut, and echoes meanwhile. */
      viaB1AfterCut: number;
      echoedAfterCut: number;
      /** The client gave the primary path up (unreachable) on every association; median ms after the kill. */
      primaryPathReported: boolean;
      unreachableMs: number | null;
      /** Clients started until the messages took the primary path before the kill (at most 3). */
      attempts: number;
      problems: string[];
    }
    /** Whether A1 still has its nftables table or the TSA (the table alone forwards on). */
    const a1Holds = () =>
      net.exec('a1', ['nft', 'list', 'tables', 'netdev']).stdout.includes('ipfe_a1') ||
      net.exec('a1', ['ip', '-4', 'addr', 'show', 'eth0']).stdout.includes(`${TSA_MH}/`);
    /** Whether A1's rules forward to both servers of the multihomed Target Set (terse: no elements). */
    const a1Forwards = () => {
      const listed = net.exec('a1', [
        'nft',
        '-j',
        '-t',
        'list',
        'table',
        'netdev',
        'ipfe_a1',
      ]).stdout;
      return MH_SERVERS.every((s) =>
        listed.includes(`"fwd": {"dev": "eth0", "family": "ip", "addr": "${HOSTS[s]}"}`),
      );
    };
    const trials: Trial[] = [];
    const n = settings.associationsPerTrial;
    for (let t = 0; t < settings.trials; t++) {
      if (!agents.a1 || agents.a1.exitCode !== null || agents.a1.signalCode !== null) {
        startAgent('a1');
        await until('A1 to serve again', () => ready('a1'), 45_000, 300);
        // Its status says so before its nftables rules do (they follow at a later tick).
        await until('A1’s rules to forward to s2 and s3', a1Forwards, 10_000, 100);
      }
      const count = () => ({
        lost: Object.fromEntries(MH_SERVERS.map((s) => [s, mhServers[s].lost().length])),
        accepted: Object.fromEntries(
          MH_SERVERS.map((s) => [s, mhServers[s].associations().length]),
        ),
      });
      let { lost: lostBefore, accepted: acceptedBefore } = count();
      const openClient = () => {
        // A1 took the TSA away at the last kill: the client's neighbour entry for it may have
        // failed since, and an INIT that goes unanswered meanwhile is sent to the secondary TSA,
        // which the association then takes as its primary path. It is learnt afresh.
        net.exec('client', ['ip', 'neigh', 'flush', 'to', TSA_MH, 'dev', 'eth0']);
        return startSctpClient(net, 'client', {
          connect: [[TSA_MH, TSA_MH2]],
          port: PORT.multihomed,
          bind: [HOSTS.client, SECOND.client],
          associations: n,
          intervalMs: 50,
        });
      };
      let client = await openClient();
      const trial: Trial = {
        trial: t + 1,
        associations: n,
        survived: 0,
        stallMs: null,
        primaryCut: false,
        cutMs: null,
        viaA1BeforeKill: 0,
        viaB1BeforeKill: 0,
        echoedBeforeKill: 0,
        viaB1AfterCut: 0,
        echoedAfterCut: 0,
        primaryPathReported: false,
        unreachableMs: null,
        attempts: 1,
        problems: [],
      };
      const problems = trial.problems;
      try {
        let before: AssociationStats[];
        for (;;) {
          for (let i = 0; i < n; i++)
            await waitForLine(client.child, new RegExp(`^up ${i} s\\d$`), { timeoutMs: 15_000 });
          // The secondary path is in use (heartbeats) through B1 before the primary fails.
          const heartbeats = packetsViaB1();
          await until(
            'heartbeats through B1',
            () => packetsViaB1() > heartbeats + 2 * n,
            10_000,
            100,
          );
          // The messages take the primary path before the kill: A1 counts more than B1.
          const startA1 = packetsVia('a1', TSA_MH);
          const startB1 = packetsViaB1();
          const start = await client.stats();
          await sleep(1000);
          before = await client.stats();
          trial.viaA1BeforeKill = packetsVia('a1', TSA_MH) - startA1;
          trial.viaB1BeforeKill = packetsViaB1() - startB1;
          trial.echoedBeforeKill = before.reduce(
            (x, a) => x + a.echoed - start[a.index]!.echoed,
            0,
          );
          if (trial.viaA1BeforeKill > trial.viaB1BeforeKill || trial.attempts >= 3) break;
          await client.quit().catch(() => net.kill(client.child));
          await until(
            'the servers to see the shutdowns',
            () =>
              MH_SERVERS.reduce((x, s) => x + mhServers[s].lost().length - lostBefore[s]!, 0) >= n,
            5_000,
            100,
          ).catch(() => {});
          ({ lost: lostBefore, accepted: acceptedBefore } = count());
          trial.attempts++;
          client = await openClient();
        }
        const linesBefore = linesOf(client.child).length;
        const killed = Date.now();
        net.kill(agents.a1!);
        // A1's kernel forwards until its exit guard has removed the TSA and the table: the
        // primary path is cut then, not at the kill. usrsctp gives the path up after three
        // timeouts and says so ("path <i> <address> unreachable"); what is sent after that can
        // only take the secondary path. From the kill on: when each association last saw an echo
        // (its longest wait), and from its primary's "unreachable" on, until it has 20 echoes of
        // messages sent after it (the stream is ordered: all before them are echoed too).
        const lastEcho = before.map(() => killed);
        const echoed = before.map((a) => a.echoed);
        let stall = 0;
        let viaB1AtCut = 0;
        let statsAtCut: AssociationStats[] | null = null;
        const atUnreachable = new Map<number, { stats: AssociationStats; ms: number }>();
        const unreachable = new RegExp(
          `^path (\\d+) ${TSA_MH.replaceAll('.', '\\.')} unreachable$`,
        );
        const deadline = killed + 12_000;
        for (;;) {
          const now = Date.now();
          const stats = await client.stats();
          for (const a of stats) {
            if (a.echoed > echoed[a.index]!) {
              echoed[a.index] = a.echoed;
              lastEcho[a.index] = now;
            }
            stall = Math.max(stall, now - lastEcho[a.index]!);
          }
          if (!statsAtCut && !a1Holds()) {
            trial.cutMs = Date.now() - killed;
            statsAtCut = stats;
            viaB1AtCut = packetsViaB1();
          }
          for (const line of linesOf(client.child).slice(linesBefore)) {
            const index = Number(unreachable.exec(line)?.[1] ?? NaN);
            if (Number.isInteger(index) && !atUnreachable.has(index))
              atUnreachable.set(index, { stats: stats[index]!, ms: now - killed });
          }
          if (
            stats.every((a) => {
              const u = atUnreachable.get(a.index);
              return u && a.echoed > u.stats.sent + 20;
            }) ||
            now > deadline
          )
            break;
          await sleep(25);
        }
        trial.stallMs = stall;
        trial.primaryCut = statsAtCut !== null;
        const after = await client.stats();
        if (statsAtCut) {
          trial.viaB1AfterCut = packetsViaB1() - viaB1AtCut;
          trial.echoedAfterCut = after.reduce(
            (x, a) => x + a.echoed - statsAtCut![a.index]!.echoed,
            0,
          );
        }
        trial.unreachableMs = round(median([...atUnreachable.values()].map((u) => u.ms)), 0);
        trial.primaryPathReported = atUnreachable.size === n;
        const events = linesOf(client.child).slice(linesBefore);
        const lostOnServers = MH_SERVERS.flatMap((s) =>
          mhServers[s]
            .lost()
            .slice(lostBefore[s])
            .map((l) => `${s}: ${l.port} ${l.why}`),
        );
        const acceptedNew = MH_SERVERS.reduce(
          (x, s) => x + mhServers[s].associations().length - acceptedBefore[s]!,
          0,
        );
        if (acceptedNew !== n)
          problems.push(`the servers accepted ${acceptedNew} associations, not ${n}`);
        if (lostOnServers.length > 0)
          problems.push(`lost on the servers: ${lostOnServers.join(', ')}`);
        for (const a of after) {
          const b = before[a.index]!;
          const lost = events.filter((l) => l.startsWith(`lost ${a.index} `));
          const reopened = events.filter((l) => l.startsWith(`open ${a.index} `));
          const u = atUnreachable.get(a.index);
          const ok =
            u !== undefined &&
            a.server === b.server &&
            a.echoed > u.stats.sent + 20 &&
            lost.length === 0 &&
            reopened.length === 0;
          if (ok) trial.survived++;
          else
            problems.push(
              `association ${a.index}: server ${b.server} → ${a.server}, ${u ? `sent ${u.stats.sent} when its primary path was given up` : 'its primary path never given up'}, echoed ${a.echoed}${lost.length ? `, ${lost.join('; ')}` : ''}`,
            );
        }
        if (!trial.primaryCut)
          problems.push('A1’s rules or TSA were still there 10 s after the kill');
        if (trial.viaA1BeforeKill <= trial.viaB1BeforeKill)
          problems.push(
            `in the second before the kill A1 forwarded ${trial.viaA1BeforeKill} packets and B1 ${trial.viaB1BeforeKill}: the messages were not on the primary path (${trial.attempts} attempts)`,
          );
        if (!trial.primaryPathReported)
          problems.push(
            `the client gave the primary path (via A1) up on ${atUnreachable.size} of ${n} associations`,
          );
      } catch (err) {
        problems.push((err as Error).message.slice(0, 300));
      } finally {
        await client.quit().catch(() => net.kill(client.child));
      }
      trials.push(trial);
      ctx.log(
        `sctp multihomed ${t + 1}/${settings.trials}: ${trial.survived}/${n} survived A1's SIGKILL` +
          (trial.stallMs === null ? '' : `, longest wait for an echo ${trial.stallMs} ms`) +
          `; A1's rules gone ${trial.cutMs ?? '–'} ms after it, primary given up at ${trial.unreachableMs ?? '–'} ms; packets in the second before via A1 ${trial.viaA1BeforeKill}, via B1 ${trial.viaB1BeforeKill} (${trial.echoedBeforeKill} echoes), via B1 after the cut ${trial.viaB1AfterCut} (${trial.echoedAfterCut} echoes)` +
          (trial.attempts > 1 ? ` (client started ${trial.attempts} times)` : '') +
          (problems.length ? `; ${problems.join('; ')}` : ''),
      );
      await sleep(200);
    }

    const perSec = (kind: 'direct' | 'baseline') =>
      rateRuns.filter((r) => r.kind === kind).map((r) => r.perSec);
    const total = trials.reduce((a, t) => a + t.associations, 0);
    const survivedTotal = trials.reduce((a, t) => a + t.survived, 0);
    const stalls = trials.map((t) => t.stallMs).filter((x): x is number => x !== null);
    const failovers = trials.filter(
      (t) => t.viaA1BeforeKill > t.viaB1BeforeKill && t.primaryCut && t.primaryPathReported,
    );
    return {
      associationsPerSec: round(median(perSec('direct')), 0),
      baselineAssociationsPerSec: round(median(perSec('baseline')), 0),
      ratioToBaseline: round(median(perSec('direct')) / median(perSec('baseline')), 3),
      rateRangeDirect: [
        round(Math.min(...perSec('direct')), 0),
        round(Math.max(...perSec('direct')), 0),
      ],
      rateRangeBaseline: [
        round(Math.min(...perSec('baseline')), 0),
        round(Math.max(...perSec('baseline')), 0),
      ],
      rateFailed: rateRuns.reduce((a, r) => a + r.failed, 0),
      multihomedSurvivedPct: total > 0 ? round((100 * survivedTotal) / total, 1) : null,
      multihomedTrials: trials.length,
      multihomedAssociations: total,
      multihomedTrialsAllSurvived: trials.filter((t) => t.survived === t.associations).length,
      multihomedStallP50Ms: round(median(stalls), 0),
      multihomedStallMaxMs: stalls.length ? Math.max(...stalls) : null,
      multihomedPrimaryCutP50Ms: round(
        median(trials.map((t) => t.cutMs).filter((x): x is number => x !== null)),
        0,
      ),
      multihomedTrialsPrimaryCutAndGivenUp: failovers.length,
      multihomedClientsRestartedOffPrimary: trials.reduce((x, t) => x + t.attempts - 1, 0),
      multihomedPrimaryGivenUpP50Ms: round(
        median(trials.map((t) => t.unreachableMs).filter((x): x is number => x !== null)),
        0,
      ),
      method: {
        rate: `sctp-peer rate mode (usrsctp) in the client namespace, ${settings.parallel} threads, each opening an association (four-way handshake) and shutting it down gracefully, over and over for ${settings.rateSeconds} s. Direct: to the TSA of an SCTP-only Hash Target Set through A1 (direct data path) to s1, which holds it; baseline: to s1's own address, no IPFE. Both usrsctp servers run in s1 throughout. ${settings.rateRounds} runs of each, alternating (B D, D B, …); the median associations per second of each`,
        multihomed: `per trial, ${settings.associationsPerTrial} associations from the client's two addresses to the primary TSA (served by A1, first network) and the secondary TSA (B1, second network) of a multihomed SCTP Target Set over s2 and s3; a message on each every 50 ms (the client's neighbour entry for the primary TSA flushed first: a restarted A1's TSA may have failed there, and an INIT unanswered meanwhile makes the secondary the association's primary). Once B1 has forwarded heartbeats of the secondary path, and A1 has forwarded more packets than B1 in the second before (else the client is started again, at most 3 times: multihomedClientsRestartedOffPrimary), A1's agent is SIGKILLed (its process group; its exit guard removes the TSA and the nftables table). A1's kernel forwards until the agent's exit guard has removed the TSA and the nftables table (cutMs, polled); usrsctp gives the primary path up after three timeouts and says so (unreachableMs): what is sent after that can only take the secondary path. An association survives when 20 messages sent after its primary was given up (and all before them) are echoed by the server it had, the client reports no loss and no new association, and no server reports it lost. A trial also records the packets A1 forwarded to the primary TSA in the second before the kill and B1 to the secondary after the cut (their agents' counted sets: DATA, SACKs, heartbeats; usrsctp bundles, so fewer than the echoes). Then the client shuts down and A1 is started again. usrsctp timers of sctp-peer.c: RTO 100–500 ms, heartbeats every 200 ms, path max retransmissions 2. Stall: the longest wait for an echo on any association from the kill on (stats polled about every 50 ms: shorter waits read as 0)`,
      },
      settings: {
        ...settings,
        topology:
          'network namespaces on two bridges: client, A1 (first network), B1 and s1–s3 (both networks); direct data path on A1 and B1, each server holding every TSA (reporter --hold-tsa)',
      },
      trials,
      rateRuns: rateRuns.map((r) => ({ ...r, perSec: round(r.perSec, 1) })),
    };
  } finally {
    net.remove();
    removeDir();
  }
}
