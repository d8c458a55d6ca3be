import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareMates, startKernelAgent, untilExternalCacheHolds } from './kernel-agents.ts';
import { netnsAvailable, startKernelClient, Topology, until } from './netns-topology.ts';

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
  const options = { control: `${hosts[slot]}:8701`, stateDir: join(dir, slot), token: TOKEN };
  return (agents[slot] = startKernelAgent(topology, slot, { ...options, sync: true }));
}

/** The seed of the bucket hash in a node's rules (while it serves the TSA). */
const seedOf = (slot: 'a1' | 'a2') =>
  / seed (0x[0-9a-f]+|\d+) /.exec(
    topology.exec(slot, ['nft', 'list', 'chain', 'inet', `ipfe_${slot}`, 'to_servers']).stdout,
  )?.[1];

const holdsTsa = (slot: 'a1' | 'a2') =>
  topology.exec(slot, ['ip', 'addr', 'show', 'eth0']).stdout.includes(TSA);

const untilMateKnows = (slot: 'a1' | 'a2', connections: number) =>
  untilExternalCacheHolds(topology, slot, join(dir, slot), connections);

/** Waits until the held connections answer as `held` says, through whichever node holds the TSA. */
async function untilHeldAnswer(held: Record<string, number>, what: string) {
  await until(
    what,
    async () => JSON.stringify(await client.ask('alive')) === JSON.stringify(held),
    10_000,
  );
}

describe.skipIf(!available)('kernel failover with shared conntrack state', () => {
  beforeAll(async () => {
    topology.build();
    prepareMates(topology, dir, { hosts, cidr: `${SUBNET}.0/24`, tsa: TSA, weights: [1, 1] });
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
    const seedOfA1 = seedOf('a1');
    expect(seedOfA1).toBeDefined();
    const held = await client.ask(`hold ${TSA} 20`);
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(20);
    // The mate has the connections in its external cache before the cut.
    await untilMateKnows('a2', 20);
    topology.exec('a1', ['ip', 'link', 'set', 'eth0', 'down']);
    await until(
      'A2 answers on the TSA',
      async () => (await client.ask(`tally ${TSA} 1`)).none === undefined,
    );
    await untilHeldAnswer(held, 'the open connections answer through A1');
    // Both mates hash a client alike: the same bucket map and the same seed.
    expect(seedOf('a2')).toBe(seedOfA1);
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
    await untilHeldAnswer(held, 'the open connections answer through A1');
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
    await untilHeldAnswer(held, 'the open connections answer through A2');
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
    await untilHeldAnswer(held, 'the open connections answer through A1');
  });
});
