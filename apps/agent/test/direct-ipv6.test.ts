import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configurationShape, formatHostPort } from '@ipfe/schema';
import { startHoldingReporter, startNamingService, stateDirWith } from './direct-hosts.ts';
import { startNetnsAgent } from './kernel-agents.ts';
import { startKernelClient, Topology } from './netns-topology.ts';
import { until } from './poll.ts';
import { expectSpreadByWeights } from './spread.ts';
import { describeLab, labMissing } from './lab.ts';
import { withPortSlices } from '../src/testing.ts';

/**
 * The direct (transparent) data path for an IPv6 Target Set: a client, the mates A1 and A2 and two
 * servers holding the TSA (the reporter's --hold-tsa: nodad, deprecated, no NS/NA for it), one
 * bridge, all on one /64. A1 forwards client → server packets unchanged (`fwd ip6`); the servers
 * see the client's own address; A2 takes over with an unsolicited neighbour advertisement.
 */
const missing = labMissing('nft');
const available = missing === null;
const PREFIX = 'fd00:231:16:';
const hosts = {
  a1: `${PREFIX}:11`,
  a2: `${PREFIX}:12`,
  s1: `${PREFIX}:21`,
  s2: `${PREFIX}:22`,
  client: `${PREFIX}:50`,
};
const TSA = `${PREFIX}:100`;
const TOKEN = 'direct-ipv6-token-0123456789abcdefghijklmn';
const SERVERS = ['s1', 's2'] as const;
type ServerName = (typeof SERVERS)[number];

const dir = mkdtempSync(join(tmpdir(), 'ipfe-d6-'));
const topology = new Topology(`d6v${process.pid % 1000}`, hosts);
const agents: Partial<Record<'a1' | 'a2', ChildProcess>> = {};
/** Source addresses each server's service has seen. */
const peers: Record<ServerName, string[]> = { s1: [], s2: [] };
let client: { ask(line: string): Promise<Record<string, number>> };
/** What A1 logged at level error (pino's 50): an nft transaction it could not apply, say. */
const a1Errors: string[] = [];

const config = configurationShape.parse({
  options: {
    ipfe: { A1: { address: hosts.a1 }, A2: { address: hosts.a2 } },
    mateIntervalMs: 100,
    mateTimeoutMs: 600,
    connectTimeoutS: 2,
  },
  xsiNetworks: [{ name: 'xsi', cidr: `${PREFIX}:/64` }],
  appServers: withPortSlices(SERVERS.map((s) => ({ name: s, addresses: [hosts[s]] }))),
  targetSets: [
    {
      number: 1,
      family: 'ipv6',
      algorithm: 'hash',
      primary: { address: TSA, activeIpfe: 'A1' },
      servers: [
        { address: hosts.s1, weight: 1 },
        { address: hosts.s2, weight: 3 },
      ],
    },
  ],
});

const holdsTsa = (slot: 'a1' | 'a2') =>
  topology.exec(slot, ['ip', '-6', 'addr', 'show', 'eth0']).stdout.includes(`${TSA}/128`);

/** Whether an IPFE's netdev ingress chain sends the TSA's packets on (`ip6 daddr TSA … goto`). */
const programmed = (slot: 'a1' | 'a2') =>
  topology
    .exec(slot, ['nft', 'list', 'chain', 'netdev', `ipfe_${slot}`, 'ingress'])
    .stdout.includes(`ip6 daddr ${TSA}`);

const macOf = (slot: 'a1' | 'a2') =>
  /link\/ether (\S+)/.exec(topology.exec(slot, ['ip', 'link', 'show', 'eth0']).stdout)?.[1];

/** The MAC the client sends to for the TSA. */
const clientNeighbourOfTsa = () =>
  /lladdr (\S+)/.exec(
    topology.exec('client', ['ip', '-6', 'neigh', 'show', TSA, 'dev', 'eth0']).stdout,
  )?.[1];

describeLab('the direct data path for an IPv6 Target Set', missing, () => {
  beforeAll(async () => {
    topology.build();
    for (const s of SERVERS) {
      startHoldingReporter(topology, s, { address: hosts[s], holdTsa: TSA });
      startNamingService(topology, s, 3868, (address) => peers[s].push(address));
    }
    for (const slot of ['a1', 'a2'] as const) {
      stateDirWith(dir, slot, config);
      agents[slot] = startNetnsAgent(topology, slot, {
        control: formatHostPort(hosts[slot], 8701),
        stateDir: join(dir, slot),
        token: TOKEN,
        sync: false,
        dataplane: 'direct',
      });
    }
    createInterface({ input: agents.a1!.stdout! }).on('line', (line) => {
      if (line.includes('"level":50')) a1Errors.push(line);
    });
    client = startKernelClient(topology);
    // Each mate serves alone until it hears the other; then A1 (the TSA's active IPFE) keeps it.
    await until('A1 alone holds the TSA', () => holdsTsa('a1') && !holdsTsa('a2'), 30_000);
    await until("A1's nftables rules for the TSA", () => programmed('a1'), 10_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}; A1 logged: ${a1Errors.join('\n') || 'no error'}`);
      },
    );
    await until(
      'the TSA forwards to both servers through A1',
      async () => {
        const tally = await client.ask(`tally ${TSA} 8`);
        return tally.none === undefined && SERVERS.every((s) => (tally[s] ?? 0) > 0);
      },
      30_000,
    );
  }, 45_000);

  afterAll(() => {
    if (available) topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('forwards IPv6 connections unchanged by the weights (1/3), and every server sees the client’s own address', async () => {
    for (const s of SERVERS) peers[s].length = 0;
    const tally = await client.ask(`tally ${TSA} 400`);
    expect(tally.none).toBeUndefined();
    expectSpreadByWeights(tally, { s1: 1, s2: 3 });
    const seen = SERVERS.flatMap((s) => peers[s]);
    expect(seen.length).toBeGreaterThanOrEqual(400);
    expect(new Set(seen)).toEqual(new Set([hosts.client]));
  });

  it("A2 takes over when A1 is killed: its neighbour advertisement moves the client to A2's MAC, and every held connection goes on", async () => {
    const held = await client.ask(`hold ${TSA} 20`);
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(20);
    expect(await client.ask('alive')).toEqual(held);
    const [a1Mac, a2Mac] = [macOf('a1'), macOf('a2')];
    expect(clientNeighbourOfTsa()).toBe(a1Mac);
    expect(holdsTsa('a2')).toBe(false);

    topology.kill(agents.a1!);
    await until('A2 holds the TSA', () => holdsTsa('a2'));
    // No packet goes to the TSA until the entry is read: only A2's unsolicited advertisement
    // (override flag) can have moved it.
    await until("the client's neighbour entry for the TSA at A2's MAC", () => {
      return clientNeighbourOfTsa() === a2Mac;
    });
    expect(await client.ask('alive')).toEqual(held);
  });
});
