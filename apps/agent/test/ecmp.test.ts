import { spawnSync, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configurationShape, type Configuration } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { frrPathspace } from '../src/bgp.ts';
import {
  countedInCommand,
  packetsTowards,
  startHoldingReporter,
  startNamingService,
} from './direct-hosts.ts';
import { startKernelAgent } from './kernel-agents.ts';
import {
  ip,
  netnsAvailable,
  startKernelClient,
  Topology,
  until,
  type KernelClient,
} from './netns-topology.ts';

/**
 * Active-active over BGP + ECMP (issue 18) on a real topology: an upstream router running FRR
 * with ECMP multipath (L4 hash), the IPFEs A1, A2 and B1 with their agents (direct path) and
 * their own FRR, two servers holding the TSA, all on one XSI bridge; and a client behind the
 * router on a link of its own. The router reaches the TSA only through the IPFEs' announcements.
 */
const FRR = '/usr/lib/frr';
const tools =
  ['nft', 'arping', 'vtysh'].every((t) => spawnSync('which', [t]).status === 0) &&
  ['zebra', 'bgpd', 'bfdd'].every((d) => spawnSync('test', ['-x', join(FRR, d)]).status === 0);
const available = netnsAvailable && tools;

const SUBNET = '10.231.30';
const CLIENT_NET = '10.231.31';
const hosts = {
  router: `${SUBNET}.1`,
  a1: `${SUBNET}.11`,
  a2: `${SUBNET}.12`,
  b1: `${SUBNET}.13`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
};
const IPFES = ['a1', 'a2', 'b1'] as const;
type IpfeName = (typeof IPFES)[number];
const SERVERS = ['s1', 's2'] as const;
const TSA = `${SUBNET}.100`;
const TOKEN = 'ecmp-token-0123456789abcdefghijklmnopqrstuv';
const ROUTER_ASN = 65000;
const IPFE_ASN = 65001;

const dir = mkdtempSync(join(tmpdir(), 'ipfe-ecmp-'));
const topology = new Topology(`ipe${process.pid % 10000}`, hosts);
const clientNs = topology.ns('client');
const routerSpace = `${topology.prefix}-rt`;
const agents: Partial<Record<IpfeName, ChildProcess>> = {};
const reporters: Partial<Record<(typeof SERVERS)[number], ChildProcess>> = {};
let client: KernelClient;
let revision = 0;

function config(group: IpfeName[]): Configuration {
  return configurationShape.parse({
    options: {
      ipfe: { A1: { address: hosts.a1 }, A2: { address: hosts.a2 }, B1: { address: hosts.b1 } },
      forwardedPorts: [3868],
      mateIntervalMs: 100,
      mateTimeoutMs: 600,
      connectTimeoutS: 2,
      bgp: { asn: IPFE_ASN, peers: [{ address: hosts.router, asn: ROUTER_ASN }] },
    },
    xsiNetworks: [{ name: 'xsi', cidr: `${SUBNET}.0/24` }],
    appServers: SERVERS.map((s, i) => ({
      name: s,
      addresses: [hosts[s]],
      initiatorPortRange: { start: 16384 + 512 * i, end: 16895 + 512 * i },
    })),
    targetSets: [
      {
        number: 1,
        family: 'ipv4',
        algorithm: 'hash',
        serving: 'activeActive',
        activeActiveIpfes: group.map((g) => g.toUpperCase()),
        primary: { address: TSA, activeIpfe: 'A1' },
        servers: SERVERS.map((s) => ({ address: hosts[s], weight: 100 })),
      },
    ],
  });
}

/** The upstream router's FRR: the IPFEs as eBGP neighbours with BFD, up to 4 equal paths. */
function startRouterFrr() {
  const run = `/var/run/frr/${routerSpace}`;
  mkdirSync(run, { recursive: true });
  const frr = frrIds();
  chownSync(run, frr.uid, frr.gid);
  const head = 'frr defaults datacenter\nhostname router\n!\n';
  const configs = {
    zebra: head,
    bfdd: `${head}bfd\n profile ipfe\n  transmit-interval 100\n  receive-interval 100\n  detect-multiplier 3\n exit\nexit\n`,
    bgpd: [
      head,
      `router bgp ${ROUTER_ASN}`,
      ` bgp router-id ${hosts.router}`,
      ' no bgp ebgp-requires-policy',
      ' bgp bestpath as-path multipath-relax',
      ...IPFES.flatMap((i) => [
        ` neighbor ${hosts[i]} remote-as ${IPFE_ASN}`,
        ` neighbor ${hosts[i]} bfd profile ipfe`,
        ` neighbor ${hosts[i]} timers 3 9`,
        ` neighbor ${hosts[i]} timers connect 1`,
      ]),
      ' address-family ipv4 unicast',
      '  maximum-paths 4',
      ' exit-address-family',
      'exit',
      '',
    ].join('\n'),
  };
  for (const daemon of ['zebra', 'bfdd', 'bgpd'] as const) {
    writeFileSync(join(run, `${daemon}.conf`), configs[daemon]);
    topology.run('router', [
      join(FRR, daemon),
      '-N',
      routerSpace,
      '-f',
      join(run, `${daemon}.conf`),
      '-i',
      join(run, `${daemon}.pid`),
      '--log',
      `file:${join(run, `${daemon}.log`)}`,
    ]);
    spawnSync('sleep', ['0.3']);
  }
}

function frrIds() {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'frr'], { encoding: 'utf8' }).stdout);
  return { uid: id('-u'), gid: id('-g') };
}

/** The next hops the router's kernel has for the TSA (the IPFEs it sends its flows to). */
function nextHops(): string[] {
  const { stdout } = topology.exec('router', ['ip', '-j', 'route', 'show', `${TSA}/32`]);
  const routes = JSON.parse(stdout || '[]') as {
    gateway?: string;
    nexthops?: { gateway: string }[];
  }[];
  return routes
    .flatMap((r) => (r.nexthops ? r.nexthops.map((n) => n.gateway) : r.gateway ? [r.gateway] : []))
    .sort();
}

function startAgent(slot: IpfeName) {
  agents[slot] = startKernelAgent(topology, slot, {
    control: `${hosts[slot]}:8701`,
    stateDir: join(dir, slot),
    token: TOKEN,
    sync: false,
    dataplane: 'direct',
  });
  // AGENT_LOG_LEVEL=info keeps each agent's log in /tmp/ipfe-ecmp-<slot>.log, for a failure.
  if (process.env.AGENT_LOG_LEVEL) {
    const log = createWriteStream(join(tmpdir(), `ipfe-ecmp-${slot}.log`), { flags: 'a' });
    agents[slot]!.stdout!.pipe(log);
  }
}

const running = (slot: IpfeName) =>
  agents[slot] !== undefined &&
  agents[slot]!.exitCode === null &&
  agents[slot]!.signalCode === null;

async function push(next: Configuration) {
  const file = join(dir, `revision-${++revision}.json`);
  writeFileSync(file, JSON.stringify(buildDocument(revision, next)));
  for (const slot of IPFES.filter(running))
    await until(
      `revision ${revision} pushed to ${slot}`,
      async () =>
        (await client.ask(`push http://${hosts[slot]}:8701 ${TOKEN} ${file}`)).status === 200,
    );
}

/** Packets the direct path of each IPFE counted towards the TSA. */
function carried(): Record<IpfeName, number> {
  return Object.fromEntries(
    IPFES.map((slot) => [
      slot,
      running(slot) ? packetsTowards(topology.exec(slot, countedInCommand(slot)).stdout, TSA) : -1,
    ]),
  ) as Record<IpfeName, number>;
}

/** GET `path` of an agent's control API, from its own namespace. */
function agentGet(slot: IpfeName, path: string): string {
  const script = `fetch('http://${hosts[slot]}:8701${path}', { headers: { authorization: 'Bearer ${TOKEN}' } }).then((r) => r.text()).then((t) => process.stdout.write(t))`;
  return topology.exec(slot, [process.execPath, '-e', script]).stdout;
}

function startServer(s: (typeof SERVERS)[number]) {
  reporters[s] = startHoldingReporter(topology, s, { address: hosts[s], holdTsa: TSA });
}

describe.skipIf(!available)('active-active over BGP and ECMP (issue 18)', () => {
  beforeAll(async () => {
    topology.build();
    // The client, behind the router on a link of its own.
    ip('netns', 'add', clientNs);
    ip('link', 'add', `${topology.prefix}c`, 'type', 'veth', 'peer', 'name', `${topology.prefix}r`);
    ip('link', 'set', `${topology.prefix}c`, 'netns', clientNs);
    ip('link', 'set', `${topology.prefix}r`, 'netns', topology.ns('router'));
    ip('-n', clientNs, 'link', 'set', `${topology.prefix}c`, 'name', 'eth0');
    ip('-n', topology.ns('router'), 'link', 'set', `${topology.prefix}r`, 'name', 'eth1');
    ip('-n', clientNs, 'addr', 'add', `${CLIENT_NET}.50/24`, 'dev', 'eth0');
    ip('-n', topology.ns('router'), 'addr', 'add', `${CLIENT_NET}.1/24`, 'dev', 'eth1');
    for (const [ns, dev] of [
      [clientNs, 'eth0'],
      [clientNs, 'lo'],
      [topology.ns('router'), 'eth1'],
    ] as const)
      ip('-n', ns, 'link', 'set', dev, 'up');
    ip('-n', clientNs, 'route', 'add', 'default', 'via', `${CLIENT_NET}.1`);
    // Servers answer the client directly, through the router; the IPFEs reach the client too.
    for (const h of [...SERVERS, ...IPFES])
      ip('-n', topology.ns(h), 'route', 'add', `${CLIENT_NET}.0/24`, 'via', hosts.router);
    for (const sysctl of ['net.ipv4.ip_forward=1', 'net.ipv4.fib_multipath_hash_policy=1'])
      topology.exec('router', ['sysctl', '-qw', sysctl]);
    startRouterFrr();

    for (const s of SERVERS) {
      startServer(s);
      startNamingService(topology, s, 3868, () => undefined);
    }
    // The client driver runs in the topology's `client` namespace: the one made above.
    client = startKernelClient(topology);
    // A1 alone at first: A2, of its group, is not started yet.
    startAgent('a1');
    await push(config(['a1', 'a2']));
  }, 60_000);

  afterAll(() => {
    for (const slot of IPFES) if (agents[slot]) topology.kill(agents[slot]!, 'SIGTERM');
    spawnSync('sleep', ['2']);
    topology.remove();
    spawnSync('ip', ['netns', 'del', clientNs]);
    // The IPFEs' FRR folders too (an agent killed outright leaves its own).
    for (const space of [routerSpace, ...IPFES.map((slot) => frrPathspace(slot, join(dir, slot)))])
      rmSync(`/var/run/frr/${space}`, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('an IPFE announces the TSA, the client reaches a server through the router; withdrawn when its servers go offline', async () => {
    await until(
      'the router has a route to the TSA through A1',
      () => nextHops().length === 1,
      30_000,
    );
    expect(nextHops()).toEqual([hosts.a1]);
    // The TSA is never an address of the IPFE (each of the group would claim it).
    expect(topology.exec('a1', ['ip', 'addr', 'show', 'eth0']).stdout).not.toContain(`${TSA}/`);
    const tally = await client.ask(`tally ${TSA} 10`);
    expect(tally.none ?? 0).toBe(0);
    expect((tally.s1 ?? 0) + (tally.s2 ?? 0)).toBe(10);

    for (const s of SERVERS) topology.kill(reporters[s]!, 'SIGSTOP');
    await until('the router has no route to the TSA', () => nextHops().length === 0, 30_000);
    for (const s of SERVERS) topology.kill(reporters[s]!, 'SIGCONT');
    await until('the TSA is announced again', () => nextHops().length === 1, 30_000);
  }, 120_000);

  it('three IPFEs: the router spreads the flows over all three, each carries some', async () => {
    startAgent('a2');
    startAgent('b1');
    await push(config(['a1', 'a2', 'b1']));
    await until(
      'the router has routes through A1, A2 and B1',
      () => nextHops().length === 3,
      30_000,
    );
    expect(nextHops()).toEqual([hosts.a1, hosts.a2, hosts.b1].sort());
    const before = carried();
    const tally = await client.ask(`tally ${TSA} 60`);
    expect(tally.none ?? 0).toBe(0);
    const after = carried();
    for (const slot of IPFES) expect(after[slot], slot).toBeGreaterThan(Math.max(0, before[slot]));

    // Each agent shows its session, BFD and what it announces, in its status and /metrics.
    await until('A1 reads its session and BFD as up', () => {
      const bgp = (JSON.parse(agentGet('a1', '/v1/status')) as { bgp?: unknown }).bgp;
      return (
        JSON.stringify(bgp) ===
        JSON.stringify({
          sessions: [{ peer: hosts.router, state: 'established', bfd: 'up' }],
          announced: [`${TSA}/32`],
        })
      );
    });
    const metrics = agentGet('b1', '/metrics');
    expect(metrics).toMatch(new RegExp(`ipfe_bgp_session_up\\{peer="${hosts.router}"[^}]*\\} 1`));
    expect(metrics).toMatch(new RegExp(`ipfe_bgp_announced\\{prefix="${TSA}/32"[^}]*\\} 1`));
  }, 120_000);

  it('an IPFE killed outright: its route is withdrawn and every held Hash connection survives', async () => {
    const held = await client.ask(`hold ${TSA} 30`);
    expect((held.s1 ?? 0) + (held.s2 ?? 0)).toBe(30);
    // Held over every IPFE (the router hashes source ports): A2 carries some of them.
    const carriedBefore = carried().a2;
    await client.ask('alive');
    expect(carried().a2).toBeGreaterThan(carriedBefore);

    topology.kill(agents.a2!, 'SIGKILL');
    await until('the router withdraws the route through A2', () => nextHops().length === 2, 30_000);
    expect(nextHops()).toEqual([hosts.a1, hosts.b1].sort());
    const alive = await client.ask('alive');
    expect((alive.s1 ?? 0) + (alive.s2 ?? 0)).toBe(30);
    expect(alive).toEqual(held);
  }, 120_000);

  it('an IPFE lost with its link: BFD takes its route away and the held connections survive', async () => {
    const held = await client.ask('alive');
    expect((held.s1 ?? 0) + (held.s2 ?? 0)).toBe(30);
    // The agent and its FRR go on running: only the router's BFD can tell it is gone.
    topology.exec('b1', ['ip', 'link', 'set', 'eth0', 'down']);
    await until('the router withdraws the route through B1', () => nextHops().length === 1, 30_000);
    expect(nextHops()).toEqual([hosts.a1]);
    const bfd = topology.exec('router', ['vtysh', '-N', routerSpace, '-c', 'show bfd peers json']);
    const peers = JSON.parse(bfd.stdout) as { peer: string; status: string }[];
    expect(peers.find((p) => p.peer === hosts.b1)?.status).toBe('down');
    const alive = await client.ask('alive');
    expect(alive).toEqual(held);
    // B1 lost its router too: alarm 5020 names it.
    await until(
      'B1 raises alarm 5020 for the router',
      () => {
        const status = agentGet('b1', '/v1/status');
        const alarms = status
          ? (
              JSON.parse(status) as {
                alarms: { code: number; server: string | null; severity: string }[];
              }
            ).alarms
          : [];
        return alarms.some(
          (a) => a.code === 5020 && a.server === hosts.router && a.severity === 'major',
        );
      },
      30_000,
    );
  }, 120_000);
});
