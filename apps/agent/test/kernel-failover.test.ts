import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configurationShape } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import {
  netnsAvailable,
  repoRoot as root,
  startKernelClient,
  startNamedServer,
  Topology,
  until,
} from './netns-topology.ts';

/**
 * Failover on the kernel path with conntrack state shared between mates: connections open through
 * A1 keep working through A2 after A1 is cut off the network.
 */
const tools = ['nft', 'conntrack', 'conntrackd', 'arping'].every(
  (t) => spawnSync('which', [t]).status === 0,
);
const available = netnsAvailable && tools;
const SUBNET = '10.231.10';
const hosts = {
  a1: `${SUBNET}.11`,
  a2: `${SUBNET}.12`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
  client: `${SUBNET}.50`,
};
const TSA = `${SUBNET}.100`;
const TOKEN = 'kernel-failover-token-0123456789abcdefghij';
const dir = mkdtempSync(join(tmpdir(), 'ipfe-kfail-'));
const topology = new Topology(`ipf${process.pid % 10000}`, hosts);
let client: { ask(line: string): Promise<Record<string, number>> };
const agents: Partial<Record<'a1' | 'a2', ChildProcess>> = {};

function startAgent(slot: 'a1' | 'a2'): ChildProcess {
  return (agents[slot] = topology.run(
    slot,
    [
      process.execPath,
      join(root, 'apps/agent/bin/ipfe-agent.js'),
      '--slot',
      slot.toUpperCase(),
      '--control',
      `${hosts[slot]}:8701`,
      '--state-dir',
      join(dir, slot),
      '--dataplane',
      'kernel',
      '--manage-addresses',
      'eth0',
      '--sync-conntrack',
    ],
    { IPFE_AGENT_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
  ));
}

const holdsTsa = (slot: 'a1' | 'a2') =>
  topology.exec(slot, ['ip', 'addr', 'show', 'eth0']).stdout.includes(TSA);

async function untilMateKnows(slot: 'a1' | 'a2', connections: number) {
  await until(`${slot.toUpperCase()} knows the connections`, async () => {
    const cache = topology.exec(slot, [
      'conntrackd',
      '-C',
      join(dir, slot, 'conntrackd.conf'),
      '-s',
      'cache',
    ]).stdout;
    return Number(/cache:external\s+active objects:\s+(\d+)/.exec(cache)?.[1] ?? 0) >= connections;
  });
}

describe.skipIf(!available)('kernel failover with shared conntrack state', () => {
  beforeAll(async () => {
    topology.build();
    const config = configurationShape.parse({
      options: {
        ipfe: { A1: { address: hosts.a1 }, A2: { address: hosts.a2 } },
        mateIntervalMs: 100,
        mateTimeoutMs: 600,
        connectTimeoutS: 2,
      },
      xsiNetworks: [{ name: 'xsi', cidr: `${SUBNET}.0/24` }],
      appServers: (['s1', 's2'] as const).map((s, i) => ({
        name: s,
        addresses: [hosts[s]],
        initiatorPortRange: { start: 16384 + 512 * i, end: 16895 + 512 * i },
      })),
      targetSets: [
        {
          number: 1,
          family: 'ipv4',
          algorithm: 'hash',
          primary: { address: TSA, activeIpfe: 'A1' },
          servers: [{ address: hosts.s1 }, { address: hosts.s2 }],
        },
      ],
    });
    for (const slot of ['a1', 'a2'] as const) {
      topology.exec(slot, ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
      mkdirSync(join(dir, slot), { recursive: true });
      writeFileSync(join(dir, slot, 'config.json'), JSON.stringify(buildDocument(1, config)));
    }
    for (const s of ['s1', 's2'] as const) {
      startNamedServer(topology, s, hosts[s]);
    }
    startAgent('a1');
    startAgent('a2');
    client = startKernelClient(topology);
    await until('A1 forwards on the TSA', async () => {
      const tally = await client.ask(`tally ${TSA} 2`);
      return (
        tally.none === undefined &&
        topology.exec('a1', ['ip', 'addr', 'show', 'eth0']).stdout.includes(TSA)
      );
    });
  }, 60_000);

  afterAll(() => {
    if (available) topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the connections open through A1 working through A2 after A1 is cut off', async () => {
    const held = await client.ask(`hold ${TSA} 20`);
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(20);
    // The mate has the connections in its external cache before the cut.
    await untilMateKnows('a2', 20);
    topology.exec('a1', ['ip', 'link', 'set', 'eth0', 'down']);
    await until(
      'A2 answers on the TSA',
      async () => (await client.ask(`tally ${TSA} 1`)).none === undefined,
    );
    await until(
      'the open connections answer through A1',
      async () => JSON.stringify(await client.ask('alive')) === JSON.stringify(held),
      10_000,
    );
  });

  it('gives the TSA back to A1 when its link returns, and the connections go on through A1', async () => {
    const held = await client.ask('alive');
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(20);
    // A1 must hear of the connections A2 carried meanwhile: they are in A1's external cache.
    topology.exec('a1', ['ip', 'link', 'set', 'eth0', 'up']);
    await until('A2 lets the TSA go', () => !holdsTsa('a2'), 30_000);
    expect(holdsTsa('a1')).toBe(true);
    await until(
      'new connections through A1',
      async () => (await client.ask(`tally ${TSA} 1`)).none === undefined,
    );
    await until(
      'the open connections answer through A1',
      async () => JSON.stringify(await client.ask('alive')) === JSON.stringify(held),
      10_000,
    );
  });

  it("moves the TSA to A2 when A1's agent is killed outright, and the open connections go on", async () => {
    const held = await client.ask('alive');
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(20);
    await untilMateKnows('a2', 20);
    topology.kill(agents.a1!, 'SIGKILL');
    // Its exit guard undoes what the agent held: the address, the table, conntrackd.
    await until("A1's address, table and conntrackd gone", () => {
      const table = topology.exec('a1', ['nft', 'list', 'table', 'inet', 'ipfe_a1']).status;
      const conntrackd = topology.exec('a1', ['pgrep', '-f', join(dir, 'a1')]).stdout.trim();
      return !holdsTsa('a1') && table !== 0 && conntrackd === '';
    });
    await until('A2 holds and answers on the TSA', async () => {
      return holdsTsa('a2') && (await client.ask(`tally ${TSA} 1`)).none === undefined;
    });
    await until(
      'the open connections answer through A2',
      async () => JSON.stringify(await client.ask('alive')) === JSON.stringify(held),
      10_000,
    );
  });

  it('takes the TSA back when A1 is restarted, and the connections go on through A1', async () => {
    const held = await client.ask('alive');
    startAgent('a1');
    await until(
      'A1 holds the TSA again and A2 lets it go',
      () => holdsTsa('a1') && !holdsTsa('a2'),
      30_000,
    );
    await until(
      'new connections through A1',
      async () => (await client.ask(`tally ${TSA} 1`)).none === undefined,
    );
    await until(
      'the open connections answer through A1',
      async () => JSON.stringify(await client.ask('alive')) === JSON.stringify(held),
      10_000,
    );
  });
});
