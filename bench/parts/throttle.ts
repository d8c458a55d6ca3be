/**
 * The Global Packet Rate Limit under a flood (issue 27 item 6), on the direct path: a client, A1
 * alone and two servers holding the TSA, in network namespaces. Per round, HELD connections are
 * opened and held, then a paced SYN flood at twice the limit (syn-flood.c, raw socket) runs for
 * FLOOD_SECONDS. What reaches the servers is counted in their namespaces, and A1's alarms are read
 * every 50 ms. bench/results/throttle.json: throttleForwardedRatio (packets a second that reached
 * the servers, over the steady part of the flood, to the limit), throttleHeldSurvivedPct,
 * throttleAlarmMs (flood start → 5013 in A1's status).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHoldingReporter, startNamingService } from '../../apps/agent/test/direct-hosts.ts';
import { startKernelClient } from '../../apps/agent/test/netns-topology.ts';
import { arrivals, countArrivals } from '../../apps/agent/test/flood/counted.ts';
import { buildSynFlood, synFlood } from '../../apps/agent/test/flood/syn-flood.ts';
import { BENCH_TOKEN, benchDocument, persistFor } from '../lib/config.ts';
import { onCleanup } from '../lib/cleanup.ts';
import { BenchNet, netnsAvailable } from '../lib/netns.ts';
import { ROOT } from '../lib/results.ts';
import { median, round, sleep, until } from '../lib/stats.ts';
import { ensureTools } from '../lib/tools.ts';
import type { PartContext } from './context.ts';

const SUBNET = '10.232.6';
const HOSTS = {
  client: `${SUBNET}.50`,
  a1: `${SUBNET}.11`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
};
const TSA = `${SUBNET}.100`;
const FLOOD_SOURCE = `${SUBNET}.60`;
const PORT = 3868;
const LIMIT_PPS = 5000;
const FLOOD_PPS = 2 * LIMIT_PPS;
const FLOOD_SECONDS = 10;
/** The steady part of a flood, where the forwarded rate is taken: past the limit's first burst. */
const STEADY_FROM_S = 2;
const STEADY_TO_S = 9;
const HELD = 20;
const AGENT_BIN = join(ROOT, 'apps/agent/bin/ipfe-agent.js');

const METHOD = `direct path, A1 alone, Global Packet Rate Limit ${LIMIT_PPS} packets/s; per round: ${HELD} connections opened through the TSA and held, then a SYN flood at ${FLOOD_PPS} packets/s (raw socket, paced every 0.2 ms, each SYN from the next source port, from an address of the client whose answers it drops) for ${FLOOD_SECONDS} s. throttleForwardedRatio: the flood's SYNs counted in the servers' namespaces from ${STEADY_FROM_S} s to ${STEADY_TO_S} s into the flood, per second, to the limit (median of the rounds); throttleForwardedOffPct: how far that is from the limit. throttleHeldSurvivedPct: held connections that echo after the flood (4 s each, TCP retransmitting what the limit dropped). throttleAlarmMs: flood start to 5013 Throttling Traffic in A1's status, read every 50 ms (the agent reads its counters once a second). 5013 must clear before the next round starts.`;

export async function runThrottle(ctx: PartContext): Promise<Record<string, unknown>> {
  if (!netnsAvailable)
    return { skipped: 'needs root and `ip netns` (iproute2): not measured on this machine' };
  const missing = ensureTools({ nft: 'nftables', arping: 'iputils-arping', gcc: 'gcc' });
  if (missing) return { skipped: missing };
  const rounds = ctx.quick ? 1 : 5;
  const dir = mkdtempSync(join(tmpdir(), 'ipfe-bench-throttle-'));
  const removeDir = onCleanup('throttle folder', () =>
    rmSync(dir, { recursive: true, force: true }),
  );
  const net = new BenchNet('nfth', HOSTS, null, ctx.log);
  try {
    for (const s of ['s1', 's2'] as const) {
      startHoldingReporter(net.topology, s, {
        address: HOSTS[s],
        holdTsa: TSA,
        mpsCapacity: 100_000,
        connectionCapacity: 100_000,
      });
      // Answers with the server's name, then echoes (the client's tally and held connections).
      startNamingService(net.topology, s, PORT, () => {});
      countArrivals(net, s, 'seen', 'prerouting', {
        flood: `ip saddr ${FLOOD_SOURCE} tcp dport ${PORT}`,
      });
    }
    const document = benchDocument(1, {
      ipfe: { A1: HOSTS.a1 },
      options: { packetRateLimitPps: LIMIT_PPS, connectTimeoutS: 2 },
      xsi: `${SUBNET}.0/24`,
      servers: [HOSTS.s1, HOSTS.s2],
      targetSets: [{ number: 1, tsa: TSA, servers: [HOSTS.s1, HOSTS.s2] }],
    });
    persistFor(join(dir, 'a1'), document);
    net.run(
      'a1',
      [
        process.execPath,
        AGENT_BIN,
        '--slot',
        'A1',
        '--control',
        `${HOSTS.a1}:8701`,
        '--state-dir',
        join(dir, 'a1'),
        '--dataplane',
        'direct',
        '--manage-addresses',
        'eth0',
      ],
      { IPFE_AGENT_TOKEN: BENCH_TOKEN, LOG_LEVEL: 'warn' },
    );
    const client = startKernelClient(net.topology);
    await until(
      'the TSA forwards to both servers',
      async () =>
        Object.keys(await client.ask(`tally ${TSA} 8`)).filter((k) => k !== 'none').length === 2,
      60_000,
      200,
    );
    await buildSynFlood(); // compiled before the first round's clock starts
    const control = `http://${HOSTS.a1}:8701`;
    const alarms = async () => Object.keys(await client.ask(`alarms ${control} ${BENCH_TOKEN}`));
    const throttling = `5013 port ${PORT}`;
    const forwarded = () =>
      (['s1', 's2'] as const).reduce((sum, s) => sum + (arrivals(net, s, 'seen').flood ?? 0), 0);

    const results: {
      ratio: number;
      held: number;
      survived: number;
      alarmMs: number | null;
      sent: number;
      sentPps: number;
    }[] = [];
    for (let round_ = 1; round_ <= rounds; round_++) {
      await until(
        '5013 cleared before the round',
        async () => !(await alarms()).includes(throttling),
        30_000,
        200,
      );
      const heldVia = await client.ask(`hold ${TSA} ${HELD}`);
      const held = Object.entries(heldVia).reduce((n, [k, v]) => (k === 'none' ? n : n + v), 0);
      const started = performance.now();
      const flood = synFlood(net.topology, 'client', {
        source: FLOOD_SOURCE,
        target: TSA,
        port: PORT,
        pps: FLOOD_PPS,
        seconds: FLOOD_SECONDS,
      });
      let alarmMs: number | null = null;
      let steady: { at: number; count: number }[] = [];
      let over = false;
      void flood.finally(() => (over = true));
      while (!over) {
        const at = (performance.now() - started) / 1000;
        if (alarmMs === null && (await alarms()).includes(throttling))
          alarmMs = performance.now() - started;
        if (
          (at >= STEADY_FROM_S && steady.length === 0) ||
          (at >= STEADY_TO_S && steady.length === 1)
        )
          steady = [...steady, { at: (performance.now() - started) / 1000, count: forwarded() }];
        await sleep(50);
      }
      const sent = await flood;
      const ratio =
        steady.length === 2
          ? (steady[1]!.count - steady[0]!.count) / (steady[1]!.at - steady[0]!.at) / LIMIT_PPS
          : NaN;
      const alive = await client.ask('alive');
      const survived = Object.values(alive).reduce((a, b) => a + b, 0);
      await client.ask('release');
      results.push({
        ratio,
        held,
        survived,
        alarmMs,
        sent: sent.sent,
        sentPps: sent.sent / sent.seconds,
      });
      ctx.log(
        `throttle round ${round_}/${rounds}: flood ${round(sent.sent / sent.seconds, 0)} packets/s, forwarded ${round(ratio * LIMIT_PPS, 0)} packets/s (ratio ${round(ratio, 3)}), ${survived}/${held} held connections answer after it, 5013 after ${alarmMs === null ? 'never' : `${round(alarmMs, 0)} ms`}`,
      );
    }
    const ratios = results.map((r) => r.ratio).filter(Number.isFinite);
    const held = results.reduce((n, r) => n + r.held, 0);
    const survived = results.reduce((n, r) => n + r.survived, 0);
    const alarmTimes = results.map((r) => r.alarmMs).filter((v): v is number => v !== null);
    const ratio = ratios.length ? median(ratios) : null;
    return {
      throttleForwardedRatio: ratio === null ? null : round(ratio, 3),
      throttleForwardedOffPct: ratio === null ? null : round(Math.abs(ratio - 1) * 100, 2),
      throttleHeldSurvivedPct: held > 0 ? round((100 * survived) / held, 1) : null,
      throttleAlarmMs: alarmTimes.length === results.length ? round(median(alarmTimes), 0) : null,
      throttleAlarmMsMax: alarmTimes.length ? round(Math.max(...alarmTimes), 0) : null,
      rounds: results.length,
      ratiosPerRound: results.map((r) => round(r.ratio, 3)),
      floodPpsPerRound: results.map((r) => round(r.sentPps, 0)),
      alarmMsPerRound: results.map((r) => (r.alarmMs === null ? null : round(r.alarmMs, 0))),
      survivedPerRound: results.map((r) => `${r.survived}/${r.held}`),
      method: METHOD,
      settings: {
        limitPps: LIMIT_PPS,
        floodPps: FLOOD_PPS,
        floodSeconds: FLOOD_SECONDS,
        held: HELD,
      },
    };
  } finally {
    net.remove();
    removeDir();
  }
}
