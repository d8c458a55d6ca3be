import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configurationShape, type AgentStatus, type Configuration } from '@ipfe/schema';
import { startNetnsAgent } from './kernel-agents.ts';
import { loopbackLab } from './loopback-lab.ts';
import { Topology } from './netns-topology.ts';
import { until } from './poll.ts';
import {
  countedInCommand,
  packetsTowards,
  startHoldingReporter,
  stateDirWith,
  twoNetworkBase,
} from './direct-hosts.ts';
import {
  addSecondNetwork,
  buildSctpPeer,
  linesOf,
  sctpPeerUnavailable,
  startSctpClient,
  startSctpServer,
  waitForLine,
  type SctpClient,
  type SctpServer,
} from './sctp/sctp-peer.ts';
import { expectSpreadByWeights } from './spread.ts';
import { describeLab, labMissing } from './lab.ts';

/**
 * SCTP on the direct (transparent) data path, with real usrsctp peers: a client, the IPFE A1 on
 * the first network, B1 on both (the secondary TSA's active IPFE; it monitors the servers on the
 * first), three servers holding every TSA (the reporter's --hold-tsa), two bridges. Each Target
 * Set has its own port, so that one usrsctp server per TSA and port runs in each server namespace.
 */
const unavailable = labMissing('nft') ?? sctpPeerUnavailable();

const A = '10.231.21';
const B = '10.231.22';
const SERVERS = ['s1', 's2', 's3'] as const;
type ServerName = (typeof SERVERS)[number];
const hosts = {
  a1: `${A}.11`,
  b1: `${A}.13`,
  s1: `${A}.21`,
  s2: `${A}.22`,
  s3: `${A}.23`,
  client: `${A}.50`,
};
const second = { b1: `${B}.13`, s1: `${B}.21`, s2: `${B}.22`, s3: `${B}.23`, client: `${B}.50` };
/** Target Set 1: both protocols, weights 1/2/1. */
const TSA_BOTH = `${A}.100`;
/** Target Set 2: SCTP only. */
const TSA_SCTP = `${A}.101`;
/** Target Set 3: multihomed, its primary TSA through A1 and its secondary through B1. */
const TSA_MH = `${A}.102`;
const TSA_MH2 = `${B}.102`;
const PORT = { both: 3868, sctp: 3869, multihomed: 3870 };
const TOKEN = 'direct-sctp-token-0123456789abcdefghijklmn';

const dir = mkdtempSync(join(tmpdir(), 'ipfe-direct-sctp-'));
const topology = new Topology(`sd${process.pid % 10000}`, hosts);
const agents: Partial<Record<'a1' | 'b1', ChildProcess>> = {};
const sctpServers = {
  both: {} as Record<ServerName, SctpServer>,
  sctp: {} as Record<ServerName, SctpServer>,
  multihomed: {} as Record<ServerName, SctpServer>,
};

const config: Configuration = configurationShape.parse({
  ...twoNetworkBase({
    a1: hosts.a1,
    b1: hosts.b1,
    prefixes: [A, B],
    servers: SERVERS.map((s) => ({ name: s, address: hosts[s], secondAddress: second[s] })),
    forwardedPorts: Object.values(PORT),
  }),
  targetSets: [
    {
      number: 1,
      family: 'ipv4',
      algorithm: 'hash',
      protocols: 'both',
      primary: { address: TSA_BOTH, activeIpfe: 'A1' },
      servers: SERVERS.map((s, i) => ({ address: hosts[s], weight: [1, 2, 1][i] })),
    },
    {
      number: 2,
      family: 'ipv4',
      algorithm: 'hash',
      protocols: 'sctp',
      primary: { address: TSA_SCTP, activeIpfe: 'A1' },
      servers: SERVERS.map((s) => ({ address: hosts[s], weight: 1 })),
    },
    {
      number: 3,
      family: 'ipv4',
      algorithm: 'hash',
      protocols: 'sctp',
      primary: { address: TSA_MH, activeIpfe: 'A1' },
      secondary: { address: TSA_MH2, activeIpfe: 'B1' },
      servers: SERVERS.map((s) => ({
        address: hosts[s],
        secondaryAddress: second[s],
        weight: 1,
      })),
    },
  ],
});

/** An agent on the direct path, forwarding on `device` (its XSI interface for its TSAs). */
function startDirectAgent(slot: 'a1' | 'b1', device: 'eth0' | 'eth1') {
  agents[slot] = startNetnsAgent(topology, slot, {
    control: `${hosts[slot]}:8701`,
    stateDir: stateDirWith(dir, slot, config),
    token: TOKEN,
    sync: false,
    dataplane: 'direct',
    device,
  });
}

/** GET /v1/status of an agent, read from the client's namespace. */
function statusOf(slot: 'a1' | 'b1'): AgentStatus {
  const script = `fetch('http://${hosts[slot]}:8701/v1/status', { headers: { authorization: 'Bearer ${TOKEN}' } })
    .then((r) => r.text()).then((t) => console.log(t), (e) => console.log(JSON.stringify({ error: e.message })))`;
  const out = topology.exec('client', [process.execPath, '-e', script]).stdout;
  return JSON.parse(out) as AgentStatus;
}

/** The packets an agent's nftables counter `in_<TSA>` counted (everything sent to that TSA). */
function packetsIn(slot: 'a1' | 'b1', tsa: string): number {
  return packetsTowards(topology.exec(slot, countedInCommand(slot)).stdout, tsa);
}

/**
 * Waits until an association to `tsa` comes up (the agents program their rules a few seconds
 * after they report the servers normal: a big nft transaction), retrying with a fresh client.
 */
async function untilAssociates(tsa: string, port: number, bind: string) {
  await until(
    `an association through ${tsa}:${port}`,
    async () => {
      const probe = await startSctpClient(topology, 'client', {
        connect: [tsa],
        port,
        bind: [bind],
        associations: 1,
      });
      const [line] = await waitForLine(probe.child, /^(up|lost) 0/, { timeoutMs: 8000 });
      if (line.startsWith('up')) {
        await probe.quit();
        return true;
      }
      topology.kill(probe.child);
      return false;
    },
    45_000,
  );
}

/** How many associations each server accepted so far on a port. */
const acceptedCounts = (port: keyof typeof PORT) =>
  Object.fromEntries(SERVERS.map((s) => [s, sctpServers[port][s].associations().length])) as Record<
    ServerName,
    number
  >;

/**
 * The associations each server accepted on a port from this client: since `from` (an earlier
 * client may have had the same local port) and from its local ports.
 */
function acceptedFrom(
  port: keyof typeof PORT,
  client: SctpClient,
  from: Record<ServerName, number>,
) {
  const ports = new Set(client.localPorts().values());
  return Object.fromEntries(
    SERVERS.map((s) => [
      s,
      sctpServers[port][s]
        .associations()
        .slice(from[s])
        .filter((a) => ports.has(a.port)),
    ]),
  ) as Record<ServerName, { address: string; port: number }[]>;
}

/** Waits for the servers' lines of `count` associations (they come on other pipes than the client's). */
async function untilAccepted(
  port: keyof typeof PORT,
  client: SctpClient,
  from: Record<ServerName, number>,
  count: number,
) {
  await until(
    `the servers report ${count} associations`,
    () => Object.values(acceptedFrom(port, client, from)).flat().length >= count,
  );
  return acceptedFrom(port, client, from);
}

describeLab('SCTP on the direct data path', unavailable, () => {
  beforeAll(async () => {
    await buildSctpPeer();
    topology.build();
    addSecondNetwork(topology, second);
    for (const s of SERVERS) {
      startHoldingReporter(topology, s, {
        address: hosts[s],
        holdTsa: `${TSA_BOTH}@eth0,${TSA_SCTP}@eth0,${TSA_MH}@eth0,${TSA_MH2}@eth1`,
        connectionCapacity: 1000,
      });
    }
    // usrsctp learns the host's addresses once, at start: the TSAs must be there first.
    await until('every server holds the TSAs', () =>
      SERVERS.every((s) =>
        topology.exec(s, ['ip', '-4', 'addr', 'show']).stdout.includes(`${TSA_MH2}/`),
      ),
    );
    for (const s of SERVERS) {
      sctpServers.both[s] = await startSctpServer(topology, s, {
        name: s,
        port: PORT.both,
        bind: [TSA_BOTH],
      });
      sctpServers.sctp[s] = await startSctpServer(topology, s, {
        name: s,
        port: PORT.sctp,
        bind: [TSA_SCTP],
      });
      sctpServers.multihomed[s] = await startSctpServer(topology, s, {
        name: s,
        port: PORT.multihomed,
        bind: [TSA_MH, TSA_MH2],
      });
    }
    startDirectAgent('a1', 'eth0');
    startDirectAgent('b1', 'eth1');
    await untilAssociates(TSA_BOTH, PORT.both, hosts.client);
    await untilAssociates(TSA_SCTP, PORT.sctp, hosts.client);
    await untilAssociates(TSA_MH2, PORT.multihomed, second.client);
  }, 90_000);

  afterAll(() => {
    topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spreads single-homed associations by the weights (1/2/1), every server seeing the client’s own address', async () => {
    const count = 400;
    const from = acceptedCounts('both');
    const client = await startSctpClient(topology, 'client', {
      connect: [TSA_BOTH],
      port: PORT.both,
      bind: [hosts.client],
      associations: count,
      intervalMs: 1000,
      timeoutMs: 5000,
    });
    for (let i = 0; i < count; i++) await waitForLine(client.child, new RegExp(`^up ${i} s\\d$`));
    const stats = await client.stats();
    const tally: Record<string, number> = {};
    for (const a of stats) tally[a.server ?? 'none'] = (tally[a.server ?? 'none'] ?? 0) + 1;
    console.log(`SCTP associations by server (weights 1/2/1): ${JSON.stringify(tally)}`);
    expectSpreadByWeights(tally, { s1: 1, s2: 2, s3: 1 });

    // Each server saw the client itself, from exactly the ports whose echoes carry its name.
    const ports = client.localPorts();
    const accepted = await untilAccepted('both', client, from, count);
    for (const s of SERVERS) {
      const mine = stats.filter((a) => a.server === s).map((a) => ports.get(a.index)!);
      expect(
        accepted[s].sort((x, y) => x.port - y.port),
        `the associations ${s} accepted`,
      ).toEqual(mine.sort((x, y) => x - y).map((port) => ({ address: hosts.client, port })));
    }
    await client.quit();
  });

  it('serves an SCTP-only and a Both Target Set with no 5002 and nothing “not forwarded”', async () => {
    const from = acceptedCounts('sctp');
    const client = await startSctpClient(topology, 'client', {
      connect: [TSA_SCTP],
      port: PORT.sctp,
      bind: [hosts.client],
      associations: 12,
    });
    for (let i = 0; i < 12; i++) await waitForLine(client.child, new RegExp(`^up ${i} s\\d$`));
    const accepted = Object.values(await untilAccepted('sctp', client, from, 12)).flat();
    expect(accepted.map((a) => a.address)).toEqual(Array(12).fill(hosts.client));
    await client.quit();

    const status = statusOf('a1');
    expect(status.dataplane).toBe('direct');
    expect(status.forwards).toEqual(['tcp', 'sctp']);
    expect(status.alarms.filter((a) => a.code === 5002)).toEqual([]);
    expect(status.targetSets.map((ts) => [ts.number, ts.notForwarded])).toEqual([
      [1, []],
      [2, []],
      [3, []],
    ]);
  });

  it('keeps multihomed associations on their servers through B1 when A1, the primary’s IPFE, is killed', async () => {
    const count = 6;
    const from = acceptedCounts('multihomed');
    const lostFrom = SERVERS.map((s) => sctpServers.multihomed[s].lost().length);
    const client = await startSctpClient(topology, 'client', {
      connect: [[TSA_MH, TSA_MH2]],
      port: PORT.multihomed,
      bind: [hosts.client, second.client],
      associations: count,
      intervalMs: 50,
    });
    for (let i = 0; i < count; i++) await waitForLine(client.child, new RegExp(`^up ${i} s\\d$`));
    // The secondary path carries heartbeats through B1 before the primary fails.
    const heartbeats = packetsIn('b1', TSA_MH2);
    await until('heartbeats through B1', () => packetsIn('b1', TSA_MH2) > heartbeats + 2 * count);
    const acceptedBefore = await untilAccepted('multihomed', client, from, count);
    expect(
      Object.values(acceptedBefore)
        .flat()
        .map((a) => a.address),
    ).toEqual(Array(count).fill(hosts.client));

    const before = await client.stats();
    const linesBefore = linesOf(client.child).length;
    const killed = Date.now();
    topology.kill(agents.a1!);
    // Five more echoes (a quarter of a second of messages) on each: the service is back.
    await until('each association echoing again', async () =>
      (await client.stats()).every((a) => a.echoed > before[a.index]!.sent + 5),
    );
    const resumedMs = Date.now() - killed;
    for (let i = 0; i < count; i++)
      await waitForLine(
        client.child,
        new RegExp(`^path ${i} ${TSA_MH.replaceAll('.', '\\.')} unreachable$`),
        { after: linesBefore },
      );
    const unreachableMs = Date.now() - killed;
    // Sent once the primary path was given up: through B1, the secondary TSA's IPFE.
    const mid = await client.stats();
    const viaB1 = packetsIn('b1', TSA_MH2);
    await until('20 more messages echoed on each association', async () =>
      (await client.stats()).every((a) => a.echoed > mid[a.index]!.sent + 20),
    );
    expect(packetsIn('b1', TSA_MH2) - viaB1).toBeGreaterThanOrEqual(20 * count);
    console.log(
      `multihomed failover through B1 after A1's SIGKILL: echoing again after ${resumedMs} ms, ` +
        `the primary path reported unreachable after ${unreachableMs} ms`,
    );

    // Same associations on the same servers: none lost, none opened again, on either side.
    const after = await client.stats();
    expect(after.map((a) => a.server)).toEqual(before.map((a) => a.server));
    expect(acceptedFrom('multihomed', client, from)).toEqual(acceptedBefore);
    for (const [i, s] of SERVERS.entries())
      expect(sctpServers.multihomed[s].lost().slice(lostFrom[i])).toEqual([]);
    expect(linesOf(client.child).filter((line) => line.startsWith('lost '))).toEqual([]);
    expect(linesOf(client.child).filter((line) => line.startsWith('open '))).toHaveLength(count);
    await client.quit();
  });
});

/** What the direct path changes: a user-space agent cannot forward SCTP, and says so. */
const loopback = loopbackLab(import.meta.url);

describe('SCTP on a data path that forwards TCP only', () => {
  it('raises 5002 for an SCTP-only Target Set and lists SCTP as not forwarded', async () => {
    const agent = await loopback.startAgent();
    await loopback.configure(agent, (c) => {
      c.targetSets[0]!.protocols = 'both';
      c.targetSets.push({
        ...c.targetSets[0]!,
        number: 2,
        protocols: 'sctp',
        primary: { address: loopback.tsa2, activeIpfe: 'A1' },
      });
    });
    await until('alarm 5002', async () =>
      (await agent.status()).alarms.some((x) => x.code === 5002),
    );
    const status = await agent.status();
    expect(status.dataplane).toBe('userspace');
    expect(status.alarms.filter((x) => x.code === 5002).map((x) => [x.targetSet, x.text])).toEqual([
      [2, 'Target Set 2 is SCTP only: SCTP is not forwarded on this node'],
    ]);
    expect(status.targetSets.map((ts) => [ts.number, ts.notForwarded])).toEqual([
      [1, ['sctp']],
      [2, ['sctp']],
    ]);
  });
});
