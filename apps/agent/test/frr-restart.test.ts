import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configurationShape } from '@ipfe/schema';
import { frrPathspace, nextRestart } from '../src/bgp.ts';
import { startHoldingReporter, stateDirWith } from './direct-hosts.ts';
import { startNetnsAgent } from './kernel-agents.ts';
import { Topology } from './netns-topology.ts';
import { until } from './poll.ts';
import { bfdProfile, frrAvailable, FRR_HEAD, startRouterFrr } from './router-frr.ts';
import { describeLab, labMissing } from './lab.ts';

describe("the agent's FRR restart backoff (issue 18)", () => {
  it('doubles from 1 s to 30 s over restarts in a row, and starts at 1 s again after a 60 s run', () => {
    const table: [inARow: number, ranMs: number, next: ReturnType<typeof nextRestart>][] = [
      [0, 0, { inARow: 1, delayMs: 1000 }],
      [1, 1500, { inARow: 2, delayMs: 2000 }],
      [2, 59_999, { inARow: 3, delayMs: 4000 }],
      [4, 100, { inARow: 5, delayMs: 16_000 }],
      [5, 100, { inARow: 6, delayMs: 30_000 }],
      [40, 100, { inARow: 41, delayMs: 30_000 }],
      [40, 60_000, { inARow: 1, delayMs: 1000 }],
    ];
    for (const [inARow, ranMs, next] of table)
      expect(nextRestart(inARow, ranMs), `${inARow} in a row, ran ${ranMs} ms`).toEqual(next);
  });
});

/**
 * The agent supervises its FRR (issue 18, decision 018): an upstream router running FRR and one
 * IPFE (A1, direct path) with its agent and its own FRR, and a server holding the TSA so that it
 * is announced, on one bridge. The router reaches the TSA only through A1's announcement.
 */
const DAEMONS = ['zebra', 'bfdd', 'bgpd'] as const;
const missing = labMissing('nft') ?? (frrAvailable ? null : 'needs FRR (apt-get install frr)');

const SUBNET = '10.231.40';
const hosts = { router: `${SUBNET}.1`, a1: `${SUBNET}.11`, s1: `${SUBNET}.21` };
const TSA = `${SUBNET}.100`;
const TOKEN = 'frr-restart-token-0123456789abcdefghijklmn';
const ROUTER_ASN = 65000;
const IPFE_ASN = 65001;

const dir = mkdtempSync(join(tmpdir(), 'ipfe-frr-restart-'));
const topology = new Topology(`ipr${process.pid % 10000}`, hosts);
const routerSpace = `${topology.prefix}-rt`;
const stateDir = join(dir, 'a1');
const pathspace = frrPathspace('a1', stateDir);
let agent: ChildProcess;

/** The upstream router's FRR: A1 as its eBGP neighbour, with BFD. */
function startRouter() {
  startRouterFrr(topology, 'router', routerSpace, {
    bfdd: bfdProfile(100, 3),
    bgpd: [
      FRR_HEAD,
      `router bgp ${ROUTER_ASN}`,
      ` bgp router-id ${hosts.router}`,
      ' no bgp ebgp-requires-policy',
      ` neighbor ${hosts.a1} remote-as ${IPFE_ASN}`,
      ` neighbor ${hosts.a1} bfd profile ipfe`,
      ` neighbor ${hosts.a1} timers 3 9`,
      ` neighbor ${hosts.a1} timers connect 1`,
      'exit',
      '',
    ].join('\n'),
  });
}

function startAgent() {
  agent = startNetnsAgent(topology, 'a1', {
    control: `${hosts.a1}:8701`,
    stateDir,
    token: TOKEN,
    sync: false,
    dataplane: 'direct',
  });
}

function agentExited(): Promise<void> {
  if (agent.exitCode !== null || agent.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => agent.once('exit', () => resolve()));
}

/** Whether the router's kernel has a route to the TSA through A1. */
function routerHasRoute(): boolean {
  const { stdout } = topology.exec('router', ['ip', '-j', 'route', 'show', `${TSA}/32`]);
  const routes = JSON.parse(stdout || '[]') as { gateway?: string }[];
  return routes.some((r) => r.gateway === hosts.a1);
}

/** The pids of A1's FRR daemons that run (any process of its pathspace). */
function a1Daemons(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return args.includes(pathspace) && DAEMONS.some((d) => args[0]?.endsWith(`/${d}`));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A1's bgpd, by the pid file it writes as it starts, when that process runs. */
function a1Bgpd(): number | null {
  try {
    const pid = Number(readFileSync(`/var/run/frr/${pathspace}/bgpd.pid`, 'utf8').trim());
    return a1Daemons().includes(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** A1's active alarms, from its status. */
function a1Alarms(): { code: number; text: string }[] {
  const script = `fetch('http://${hosts.a1}:8701/v1/status', { headers: { authorization: 'Bearer ${TOKEN}' } }).then((r) => r.text()).then((t) => process.stdout.write(t), () => {})`;
  const status = topology.exec('a1', [process.execPath, '-e', script]).stdout;
  return status ? (JSON.parse(status) as { alarms: { code: number; text: string }[] }).alarms : [];
}

describeLab('the agent restarts its FRR when a daemon dies (issue 18)', missing, () => {
  beforeAll(async () => {
    topology.build();
    startRouter();
    startHoldingReporter(topology, 's1', { address: hosts.s1, holdTsa: TSA });
    // A1 starts with the configuration in its state folder: TSA active-active in the group A1+A2
    // (A2 is configured, never started).
    const config = configurationShape.parse({
      options: {
        ipfe: { A1: { address: hosts.a1 }, A2: { address: `${SUBNET}.12` } },
        forwardedPorts: [3868],
        bgp: { asn: IPFE_ASN, peers: [{ address: hosts.router, asn: ROUTER_ASN }] },
      },
      xsiNetworks: [{ name: 'xsi', cidr: `${SUBNET}.0/24` }],
      appServers: [
        { name: 's1', addresses: [hosts.s1], initiatorPortRange: { start: 16384, end: 16895 } },
      ],
      targetSets: [
        {
          number: 1,
          family: 'ipv4',
          algorithm: 'hash',
          serving: 'activeActive',
          activeActiveIpfes: ['A1', 'A2'],
          primary: { address: TSA, activeIpfe: 'A1' },
          servers: [{ address: hosts.s1, weight: 100 }],
        },
      ],
    });
    stateDirWith(dir, 'a1', config);
    startAgent();
    await until('the router learns the TSA from A1', routerHasRoute, 30_000);
  }, 60_000);

  afterAll(async () => {
    topology.kill(agent, 'SIGTERM');
    await agentExited();
    topology.remove();
    for (const space of [routerSpace, pathspace])
      rmSync(`/var/run/frr/${space}`, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("A1's bgpd killed: the router loses the route, and gets it back with no configuration change", async () => {
    const killed = a1Bgpd();
    expect(killed).not.toBeNull();
    process.kill(killed!, 'SIGKILL');
    await until('the router loses the route to the TSA', () => !routerHasRoute(), 10_000);
    await until('the router has the route through A1 again', routerHasRoute, 30_000);
    expect(a1Bgpd()).not.toBe(killed);
    expect(a1Daemons()).toHaveLength(3);
  }, 60_000);

  it('bgpd killed three times in a row: A1 alarms that FRR keeps exiting, and still brings it back', async () => {
    for (let i = 0; i < 3; i++) {
      const killed = a1Bgpd();
      expect(killed).not.toBeNull();
      process.kill(killed!, 'SIGKILL');
      await until('A1 restarts bgpd', () => ![null, killed].includes(a1Bgpd()), 30_000);
    }
    await until('A1 raises alarm 5002 saying FRR keeps exiting', () =>
      a1Alarms().some((a) => a.code === 5002 && a.text.includes('FRR keeps exiting')),
    );
    await until('the router has the route through A1 again', routerHasRoute, 30_000);
  }, 90_000);

  it('A1 killed outright after a restart: its exit guard stops the restarted daemons', async () => {
    expect(a1Daemons()).toHaveLength(3);
    topology.kill(agent, 'SIGKILL');
    await agentExited();
    await until("A1's daemons are gone", () => a1Daemons().length === 0);
    await until('the router loses the route to the TSA', () => !routerHasRoute(), 10_000);
  }, 30_000);

  it('bgpd killed and A1 stopped at once (SIGTERM): no daemon of A1 outlives it', async () => {
    startAgent();
    await until('the router learns the TSA from A1', routerHasRoute, 30_000);
    process.kill(a1Bgpd()!, 'SIGKILL');
    topology.kill(agent, 'SIGTERM');
    await agentExited();
    expect(agent.exitCode).toBe(0);
    expect(a1Daemons()).toEqual([]);
    await until('the router loses the route to the TSA', () => !routerHasRoute(), 10_000);
  }, 60_000);
});
