import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configurationShape } from '@ipfe/schema';
import { startHoldingReporter, startNamingService, stateDirWith } from './direct-hosts.ts';
import { prepareMates, startNetnsAgent, untilExternalCacheHolds } from './kernel-agents.ts';
import { ip, startKernelClient, Topology, type KernelClient } from './netns-topology.ts';
import { until } from './poll.ts';
import { addSecondNetwork, setBridgePort } from './sctp/sctp-peer.ts';
import { describeLab, labMissing } from './lab.ts';
import { withPortSlices } from '../src/testing.ts';

/**
 * Failover when an IPFE loses only its TSA-facing link (decision 028), which the source product
 * does not do: the mates beacon over an internal network of their own (eth1), so A1 still looks
 * alive to A2 when its eth0 — where the clients, the servers and its next hop `gw` are — is cut.
 * A1 says in its beacons that it cannot serve, A2 takes the TSA over, the held connections go on
 * through A2, and A1 takes the TSA back once its link is whole again. Once with the carrier lost,
 * once with the next hop no longer answering ARP (or, on the direct path, ND) while the carrier
 * stays up; on the kernel path (conntrackd) and on the direct path (flow records).
 */
type Ipfe = 'a1' | 'a2';

interface LinkLab {
  topology: Topology;
  /** The addresses on eth0 (XSI, the TSA-facing link) by host, and the mates' on eth1. */
  hosts: Record<'a1' | 'a2' | 's1' | 's2' | 'client' | 'gw', string>;
  internal: Record<Ipfe, string>;
  tsa: string;
  token: string;
  dir: string;
  client: KernelClient;
}

const SERVERS = ['s1', 's2'] as const;
/** A1's probes of its next hop: every 100 ms, down after 3 missed. */
const PROBES = ['--next-hop-interval-ms', '100', '--next-hop-misses', '3'];

function newLab(prefix: string, subnet: string, internalNet: string, token: string): LinkLab {
  const hosts = {
    a1: `${subnet}.11`,
    a2: `${subnet}.12`,
    s1: `${subnet}.21`,
    s2: `${subnet}.22`,
    client: `${subnet}.50`,
    gw: `${subnet}.1`,
  };
  return {
    topology: new Topology(prefix, hosts),
    hosts,
    internal: { a1: `${internalNet}.11`, a2: `${internalNet}.12` },
    tsa: `${subnet}.100`,
    token,
    dir: mkdtempSync(join(tmpdir(), `ipfe-${prefix}-`)),
    client: null as unknown as KernelClient,
  };
}

/** The topology, and the mates' internal network (eth1, a bridge of its own). */
function build(lab: LinkLab) {
  lab.topology.build();
  addSecondNetwork(lab.topology, lab.internal);
}

const holds = (lab: LinkLab, slot: Ipfe) =>
  lab.topology.exec(slot, ['ip', 'addr', 'show', 'eth0']).stdout.includes(`${lab.tsa}/`);

/** GET /v1/status of an agent, from its own namespace over the internal network. */
function statusOf(
  lab: LinkLab,
  slot: Ipfe,
): {
  alarms: { code: number; text: string }[];
  mate: { alive: boolean };
  counters: { mateFlows?: number };
  targetSets: { servers: { address: string; state: string }[] }[];
} | null {
  const script = `fetch('http://${lab.internal[slot]}:8701/v1/status', { headers: { authorization: 'Bearer ${lab.token}' } })
    .then((r) => r.text()).then((t) => console.log(t), () => console.log('null'))`;
  return JSON.parse(lab.topology.exec(slot, [process.execPath, '-e', script]).stdout || 'null');
}

const linkAlarm = (lab: LinkLab, slot: Ipfe) =>
  statusOf(lab, slot)?.alarms.find((a) => a.code === 5153) ?? null;

/** How many held connections answer (each within 4 s), whichever server they reach. */
const answering = async (lab: LinkLab) =>
  Object.values(await lab.client.ask('alive')).reduce((a, b) => a + b, 0);

/** Waits until the new connections are forwarded through `slot` alone holding the TSA. */
async function untilServedBy(lab: LinkLab, slot: Ipfe, timeoutMs = 20_000) {
  const other: Ipfe = slot === 'a1' ? 'a2' : 'a1';
  await until(
    `${slot.toUpperCase()} alone holds the TSA and forwards`,
    async () =>
      holds(lab, slot) &&
      !holds(lab, other) &&
      (await lab.client.ask(`tally ${lab.tsa} 2`)).none === undefined,
    timeoutMs,
  );
}

/**
 * A1's next hop stops answering its ARP requests (and neighbour solicitations), or answers again:
 * a filter on `gw`'s ingress, by A1's MAC. The carrier stays up.
 */
function silenceNextHop(lab: LinkLab, silent: boolean, what: 'arp' | 'nd' = 'arp') {
  const mac = lab.topology.exec('a1', ['cat', '/sys/class/net/eth0/address']).stdout.trim();
  const match = what === 'arp' ? 'arp operation request' : 'icmpv6 type nd-neighbor-solicit';
  const script = silent
    ? `table netdev lkgw { chain in { type filter hook ingress device "eth0" priority 0; ether saddr ${mac} ${match} drop; }; }`
    : 'delete table netdev lkgw';
  const result = lab.topology.exec('gw', ['nft', script]);
  if (result.status !== 0) throw new Error(`nft on gw: ${result.stderr}`);
}

/** The scenarios both data paths go through; `mateKnows` waits until A2 can carry A1's connections. */
function linkFailoverScenarios(lab: LinkLab, mateKnows: (held: number) => Promise<void>) {
  it('A1 loses its carrier: A2 takes the TSA over and the held connections go on; A1 raises 5153, A2 still hears A1', async () => {
    const held = await lab.client.ask(`hold ${lab.tsa} 20`);
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(20);
    await mateKnows(20);
    setBridgePort(lab.topology, 'a1', 'eth0', false);
    await untilServedBy(lab, 'a2');
    expect(await answering(lab)).toBe(20);
    // A veth whose other end is down says `down`, a NIC whose cable is pulled `lowerlayerdown`.
    const alarm = await until('A1 raises 5153', () => linkAlarm(lab, 'a1'));
    // (A1's probes of its next hop fail too: said after the carrier.)
    expect(alarm.text).toMatch(
      /^The TSA-facing link eth0 is down: no carrier on eth0 \(operstate down\)/,
    );
    // Not a mate failure: A2 hears A1 all along (no 5012), A1 is only unable to serve.
    const a2 = statusOf(lab, 'a2')!;
    expect(a2.mate.alive).toBe(true);
    expect(a2.alarms.map((a) => a.code)).not.toContain(5012);
  });

  it('A1’s carrier back after its servers went silent: A1 sees them again and takes the TSA back after the hold-off, the held connections go on, 5153 clears', async () => {
    // Cut for longer than Connect Timeout: A1's monitoring connections have failed, and a hand-back
    // to a node that still took its servers for offline would end their connections.
    await until(
      'A1 takes its servers for offline',
      () =>
        statusOf(lab, 'a1')?.targetSets[0]?.servers.every((s) => s.state === 'offline') ?? false,
    );
    setBridgePort(lab.topology, 'a1', 'eth0', true);
    await until('A1 clears 5153', () => linkAlarm(lab, 'a1') === null);
    await untilServedBy(lab, 'a1', 30_000);
    expect(await answering(lab)).toBe(20);
  });

  it('A1’s next hop stops answering ARP while the carrier stays up: A2 takes over, the held connections go on; then back', async () => {
    await mateKnows(20);
    silenceNextHop(lab, true);
    await untilServedBy(lab, 'a2');
    expect(lab.topology.exec('a1', ['cat', '/sys/class/net/eth0/operstate']).stdout.trim()).toBe(
      'up',
    );
    expect((await until('A1 raises 5153', () => linkAlarm(lab, 'a1'))).text).toBe(
      `The TSA-facing link eth0 is down: next hop ${lab.hosts.gw} answered none of the last 3 ARP requests`,
    );
    expect(await answering(lab)).toBe(20);
    silenceNextHop(lab, false);
    await until('A1 clears 5153', () => linkAlarm(lab, 'a1') === null);
    await untilServedBy(lab, 'a1', 30_000);
    expect(await answering(lab)).toBe(20);
  });
}

const kernelMissing = labMissing('nft', 'conntrack', 'conntrackd', 'arping');
const kernel = newLab(
  `lk${process.pid % 10000}`,
  '10.231.70',
  '10.231.71',
  'link-kernel-token-0123456789abcdefghijk',
);

describeLab('a lost TSA-facing link on the kernel path (conntrackd)', kernelMissing, () => {
  const agents: Partial<Record<Ipfe, ChildProcess>> = {};

  beforeAll(async () => {
    build(kernel);
    prepareMates(kernel.topology, kernel.dir, {
      // The mates' own addresses (beacons, conntrackd) are on the internal network.
      hosts: { ...kernel.hosts, ...kernel.internal },
      cidr: '10.231.70.0/24',
      tsa: kernel.tsa,
      weights: [1, 1],
    });
    for (const slot of ['a1', 'a2'] as const)
      agents[slot] = startNetnsAgent(kernel.topology, slot, {
        control: `${kernel.internal[slot]}:8701`,
        stateDir: join(kernel.dir, slot),
        token: kernel.token,
        sync: true,
        flags: ['--next-hop', kernel.hosts.gw, ...PROBES],
      });
    kernel.client = startKernelClient(kernel.topology);
    await untilServedBy(kernel, 'a1', 60_000);
  }, 90_000);

  afterAll(() => {
    if (kernelMissing === null) kernel.topology.remove();
    rmSync(kernel.dir, { recursive: true, force: true });
  });

  linkFailoverScenarios(kernel, (held) =>
    untilExternalCacheHolds(kernel.topology, 'a2', join(kernel.dir, 'a2'), held),
  );
});

const directMissing = labMissing('nft', 'arping', 'ndisc6');
const direct = newLab(
  `ld${process.pid % 10000}`,
  '10.231.72',
  '10.231.73',
  'link-direct-token-0123456789abcdefghijk',
);
/** The IPv6 side of eth0: A1 probes gw over ND too. */
const V6 = { gw: 'fd00:231:72::1', a1: 'fd00:231:72::11', a2: 'fd00:231:72::12' };

describeLab('a lost TSA-facing link on the direct path (flow records)', directMissing, () => {
  beforeAll(async () => {
    build(direct);
    for (const [host, address] of Object.entries(V6))
      ip(
        '-n',
        direct.topology.ns(host),
        '-6',
        'addr',
        'add',
        `${address}/64`,
        'dev',
        'eth0',
        'nodad',
      );
    const config = configurationShape.parse({
      options: {
        ipfe: { A1: { address: direct.internal.a1 }, A2: { address: direct.internal.a2 } },
        mateIntervalMs: 100,
        mateTimeoutMs: 600,
        connectTimeoutS: 2,
      },
      xsiNetworks: [{ name: 'xsi', cidr: '10.231.72.0/24' }],
      appServers: withPortSlices(SERVERS.map((s) => ({ name: s, addresses: [direct.hosts[s]] }))),
      targetSets: [
        {
          number: 1,
          family: 'ipv4',
          algorithm: 'hash',
          primary: { address: direct.tsa, activeIpfe: 'A1' },
          servers: SERVERS.map((s) => ({ address: direct.hosts[s], weight: 1 })),
        },
      ],
    });
    for (const s of SERVERS) {
      startHoldingReporter(direct.topology, s, { address: direct.hosts[s], holdTsa: direct.tsa });
      startNamingService(direct.topology, s, 3868, () => undefined);
    }
    for (const slot of ['a1', 'a2'] as const)
      startNetnsAgent(direct.topology, slot, {
        control: `${direct.internal[slot]}:8701`,
        stateDir: stateDirWith(direct.dir, slot, config),
        token: direct.token,
        sync: false,
        dataplane: 'direct',
        flags: ['--next-hop', `${direct.hosts.gw},${V6.gw}`, ...PROBES],
      });
    direct.client = startKernelClient(direct.topology);
    await untilServedBy(direct, 'a1', 60_000);
    direct.topology.exec('client', ['ip', 'neigh', 'flush', 'to', direct.tsa, 'dev', 'eth0']);
  }, 90_000);

  afterAll(() => {
    if (directMissing === null) direct.topology.remove();
    rmSync(direct.dir, { recursive: true, force: true });
  });

  linkFailoverScenarios(direct, async (held) => {
    // A2 knows as many of A1's flows as it holds (A1 tells them within a read of its records).
    await until(
      'A2 knows the flows of A1',
      () => (statusOf(direct, 'a2')?.counters.mateFlows ?? 0) >= held,
      45_000,
    );
  });

  it('A1’s next hop stops answering neighbour solicitations: A2 takes over; answering again, A1 takes it back', async () => {
    silenceNextHop(direct, true, 'nd');
    await untilServedBy(direct, 'a2');
    expect((await until('A1 raises 5153', () => linkAlarm(direct, 'a1'))).text).toBe(
      `The TSA-facing link eth0 is down: next hop ${V6.gw} answered none of the last 3 neighbour solicitations`,
    );
    expect(await answering(direct)).toBe(20);
    silenceNextHop(direct, false);
    await until('A1 clears 5153', () => linkAlarm(direct, 'a1') === null);
    await untilServedBy(direct, 'a1', 30_000);
    expect(await answering(direct)).toBe(20);
  });
});
