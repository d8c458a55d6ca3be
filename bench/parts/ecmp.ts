/**
 * Active-active over BGP + ECMP (issue 18), on the agent tests' lab (apps/agent/test/ecmp-lab.ts):
 * an upstream router running FRR with ECMP and BFD (100 ms × 3), three IPFEs on the direct path
 * with their own FRR, two servers holding the TSA, a client behind the router. Measures each
 * IPFE's share of new flows; the time from an IPFE's loss (its agent SIGKILLed, or its link cut)
 * until the router's kernel no longer sends to it; whether the connections held through the loss
 * survive; and whether they survive the lost IPFE's return (a join). bench/results/ecmp.json.
 */
import { createInterface } from 'node:readline';
import { EcmpLab, ecmpLabMissing, IPFES, type IpfeName } from '../../apps/agent/test/ecmp-lab.ts';
import { onCleanup } from '../lib/cleanup.ts';
import { median, percentile, round, until } from '../lib/stats.ts';
import type { PartContext } from './context.ts';

const HELD = 30;
const FLOWS = 600;

const METHOD =
  'network namespaces: router (FRR bgpd/bfdd/zebra, maximum-paths 4, fib_multipath_hash_policy=1, BFD 100 ms × 3), IPFEs A1, A2, B1 (agents on the direct path, each with its own FRR), servers s1 and s2 holding the TSA, a client behind the router. Shares: 600 new connections, each IPFE’s SYNs counted by an nftables counter of the lab’s own. Per trial (the lost IPFE in turn A1, A2, B1, …): 30 connections held through all three; the IPFE lost (kill: SIGKILL of its agent’s process group; link: its eth0 set down, agent and FRR running on); failoverMs is from that moment to the router’s first route change for the TSA after it (`ip -ts monitor route`, µs timestamps), which drops the lost IPFE’s next hop (checked); then each held connection sends a token and must get its echo within 1.5 s (survived); the IPFE comes back (agent restarted, or link up) and, once the router routes through all three again, the held connections are probed again (joinSurvived; joinCarried: trials where the returned IPFE forwarded some of them). p99 is the nearest rank.';

interface Trial {
  failoverMs: number;
  survived: number;
  joinSurvived: number;
  joinCarried: boolean;
}

export async function runEcmp(ctx: PartContext): Promise<Record<string, unknown>> {
  if (ecmpLabMissing) return { skipped: ecmpLabMissing };
  const trials = ctx.quick ? 3 : 12;
  const lab = new EcmpLab('nfbe', '10.232.40', '10.232.41');
  const removeLab = onCleanup('ecmp lab', () => lab.remove());
  try {
    lab.build();
    const routes = watchRoutes(lab);
    for (const slot of IPFES) lab.startAgent(slot);
    await lab.push(lab.config(IPFES));
    await lab.untilRoutedThrough(IPFES, 60_000);
    ctx.log(`ecmp: routed through ${IPFES.join(', ')}`);

    const { tally, perIpfe } = await lab.newConnections(FLOWS);
    const shares = IPFES.map((s) => (100 * perIpfe[s]) / FLOWS);
    ctx.log(`ecmp: shares of ${FLOWS} new flows ${shares.map((s) => round(s)).join(' / ')} %`);

    const kill: Trial[] = [];
    const link: Trial[] = [];
    for (const [kind, list] of [
      ['kill', kill],
      ['link', link],
    ] as const) {
      for (let t = 0; t < trials; t++) {
        const lost = IPFES[t % IPFES.length]!;
        list.push(await trial(lab, routes, kind, lost));
        const last = list.at(-1)!;
        ctx.log(
          `ecmp: ${kind} ${lost} trial ${t + 1}/${trials}: ${round(last.failoverMs)} ms, ${last.survived}/${HELD} survived, ${last.joinSurvived}/${HELD} after the return`,
        );
      }
    }
    routes.stop();
    const figures = (list: Trial[]) => ({
      p50: round(median(list.map((t) => t.failoverMs))),
      p99: round(
        percentile(
          list.map((t) => t.failoverMs),
          99,
        ),
      ),
    });
    const pct = (list: Trial[], key: 'survived' | 'joinSurvived') =>
      round((100 * list.reduce((a, t) => a + t[key], 0)) / (HELD * list.length), 2);
    return {
      ipfes: IPFES.length,
      sharePctMin: round(Math.min(...shares)),
      sharePctMax: round(Math.max(...shares)),
      flows: FLOWS,
      unanswered: tally.none ?? 0,
      failoverMs: figures(kill),
      bfdFailoverMs: figures(link),
      survivedPct: pct([...kill, ...link], 'survived'),
      joinSurvivedPct: pct([...kill, ...link], 'joinSurvived'),
      joinCarriedTrials: [...kill, ...link].filter((t) => t.joinCarried).length,
      trials: kill.length + link.length,
      heldPerTrial: HELD,
      method: METHOD,
    };
  } finally {
    removeLab();
  }
}

/** One loss and return of `lost`, with connections held through both. */
async function trial(
  lab: EcmpLab,
  routes: RouteWatch,
  kind: 'kill' | 'link',
  lost: IpfeName,
): Promise<Trial> {
  const held = await lab.client.ask(`hold ${lab.tsa} ${HELD}`);
  const heldCount = Object.values(held).reduce((a, b) => a + b, 0);
  if (heldCount !== HELD) throw new Error(`held ${heldCount} of ${HELD} connections`);
  const others = IPFES.filter((s) => s !== lost);
  const lostAt = Date.now();
  if (kind === 'kill') lab.topology.kill(lab.agents[lost]!, 'SIGKILL');
  else lab.topology.exec(lost, ['ip', 'link', 'set', 'eth0', 'down']);
  await lab.untilRoutedThrough(others, 30_000);
  // The monitor's lines come through a pipe of their own: they may trail the route seen above.
  const changedAt = await until(
    'the route change in the monitor',
    () => routes.firstChangeAfter(lostAt),
    5000,
    20,
  ).catch(() => null);
  if (changedAt === null)
    throw new Error(
      `no route change seen for the TSA since ${new Date(lostAt).toISOString()}:\n${routes.seen().join('\n')}`,
    );
  const survived = count(await lab.client.ask('alive'));

  if (kind === 'kill') lab.startAgent(lost);
  else lab.topology.exec(lost, ['ip', 'link', 'set', 'eth0', 'up']);
  await lab.untilRoutedThrough(IPFES, 60_000);
  const carriedBefore = lab.carried(lost);
  const joinSurvived = count(await lab.client.ask('alive'));
  const joinCarried = lab.carried(lost) > Math.max(0, carriedBefore);
  await lab.client.ask('release');
  return { failoverMs: changedAt - lostAt, survived, joinSurvived, joinCarried };
}

const count = (tally: Record<string, number>) =>
  Object.entries(tally)
    .filter(([server]) => server !== 'none')
    .reduce((a, [, n]) => a + n, 0);

interface RouteWatch {
  /** The wall-clock time (ms) of the first change of the TSA's route at or after `since`. */
  firstChangeAfter(since: number): number | null;
  /** Every event seen, for an error. */
  seen(): string[];
  stop(): void;
}

/**
 * The router's changes of the TSA's route, as `ip -ts monitor` stamps them: a route event for the
 * TSA, or a change of a nexthop group (zebra may change the group the route points to in place).
 */
function watchRoutes(lab: EcmpLab): RouteWatch {
  const monitor = lab.topology.run('router', ['ip', '-ts', 'monitor', 'route', 'nexthop'], {
    TZ: 'UTC',
  });
  const changes: { at: number; line: string }[] = [];
  const seen: string[] = [];
  const stamped = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)\] (.*)$/;
  createInterface({ input: monitor.stdout! }).on('line', (line) => {
    seen.push(line);
    const m = stamped.exec(line);
    if (!m) return;
    const event = m[2]!.replace(/^Deleted /, '');
    if (event.startsWith(`${lab.tsa} `) || /^id \d+ group /.test(event))
      changes.push({ at: Date.parse(`${m[1]!.slice(0, 23)}Z`), line: m[2]! });
  });
  return {
    firstChangeAfter: (since) => changes.find((c) => c.at >= since)?.at ?? null,
    seen: () => seen.slice(-40),
    stop: () => lab.topology.kill(monitor, 'SIGTERM'),
  };
}
