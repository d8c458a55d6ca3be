import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { prepareMates, startNetnsAgent, untilExternalCacheHolds } from './kernel-agents.ts';
import { startKernelClient, Topology, type KernelClient } from './netns-topology.ts';
import { until } from './poll.ts';
import { describeLab, labMissing } from './lab.ts';

/**
 * Failover on the kernel path with conntrack state shared between mates: connections open through
 * A1 keep working through A2 after A1 is cut off the network.
 */
const missing = labMissing('nft', 'conntrack', 'conntrackd', 'arping');
const available = missing === null;
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
const topology = new Topology(`nf${process.pid % 10000}`, hosts);
let client: KernelClient;
const agents: Partial<Record<'a1' | 'a2', ChildProcess>> = {};

function startAgent(slot: 'a1' | 'a2'): ChildProcess {
  const options = { control: `${hosts[slot]}:8701`, stateDir: join(dir, slot), token: TOKEN };
  return (agents[slot] = startNetnsAgent(topology, slot, { ...options, sync: true }));
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

/** How many held connections answer, whichever server they reach. */
const answering = async (c: KernelClient) =>
  Object.values(await c.ask('alive')).reduce((a, b) => a + b, 0);

/** What A1's agent says of its mate (its status, read from inside A1's namespace). */
function a1HearsA2(): boolean {
  const script = `fetch('http://${hosts.a1}:8701/v1/status', { headers: { authorization: 'Bearer ${TOKEN}' } })
    .then((r) => r.json()).then((s) => console.log(s.mate.alive))`;
  return topology.exec('a1', [process.execPath, '-e', script]).stdout.trim() === 'true';
}

/** The codes of a node's active alarms (its status, read from inside its namespace). */
function alarmsOf(slot: 'a1' | 'a2'): { code: number; text: string }[] {
  const script = `fetch('http://${hosts[slot]}:8701/v1/status', { headers: { authorization: 'Bearer ${TOKEN}' } })
    .then((r) => r.json()).then((s) => console.log(JSON.stringify(s.alarms)))`;
  const out = topology.exec(slot, [process.execPath, '-e', script]).stdout.trim();
  return out ? (JSON.parse(out) as { code: number; text: string }[]) : [];
}

/** How many times a node's conntrackd has committed its external cache (its log in the state folder). */
const commitsOf = (slot: 'a1' | 'a2') =>
  (readFileSync(join(dir, slot, 'conntrackd.log'), 'utf8').match(/commit has taken/g) ?? []).length;

/** Established connections to the TSA in a node's external cache (what its mate told it of). */
const externalEstablished = (slot: 'a1' | 'a2') =>
  topology
    .exec(slot, ['conntrackd', '-C', join(dir, slot, 'conntrackd.conf'), '-e'])
    .stdout.split('\n')
    .filter((l) => l.includes('ESTABLISHED') && l.includes(`dst=${TSA} `)).length;

describeLab('kernel failover with shared conntrack state', missing, () => {
  beforeAll(async () => {
    topology.build();
    prepareMates(topology, dir, { hosts, cidr: `${SUBNET}.0/24`, tsa: TSA, weights: [1, 1] });
    startAgent('a1');
    startAgent('a2');
    client = startKernelClient(topology);
    await until('A1 forwards on the TSA', async () => {
      const tally = await client.ask(`tally ${TSA} 2`);
      // A1 holds the address and has programmed its rules (the hash seed the tests compare).
      return (
        tally.none === undefined &&
        topology.exec('a1', ['ip', 'addr', 'show', 'eth0']).stdout.includes(TSA) &&
        seedOf('a1') !== undefined
      );
    });
  }, 60_000);

  afterAll(() => {
    if (available) topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('raises 5003 while a conntrackd is gone, starts it again and clears it (then the next test shares through it)', async () => {
    const conf = join(dir, 'a2', 'conntrackd.conf');
    expect(topology.exec('a2', ['pkill', '-KILL', '-f', `conntrackd -C ${conf}`]).status).toBe(0);
    const raised = await until('A2 raises 5003', () => alarmsOf('a2').find((a) => a.code === 5003));
    expect(raised.text).toMatch(
      /^Connection state is not shared with the mate: conntrackd stopped/,
    );
    await until(
      'A2 runs conntrackd again and clears 5003',
      () =>
        alarmsOf('a2').every((a) => a.code !== 5003) &&
        topology.exec('a2', ['pgrep', '-f', `conntrackd -C ${conf}`]).status === 0,
    );
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
    // Its link back, A1 is like a returning node (decision 028): it takes the TSA back once the
    // hold-off has passed, as A2 lets it go.
    await until(
      'A2 lets the TSA go and A1 holds it',
      () => !holdsTsa('a2') && holdsTsa('a1'),
      30_000,
    );
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

  it('keeps 20 connections A1 alone carried through a healed split, then through A2 after a SIGKILL of A1', async () => {
    // New connections, through A1 only: A2 knows them from A1's conntrackd, it never carried them.
    const fresh = startKernelClient(topology);
    const known = externalEstablished('a2');
    const held = await fresh.ask(`hold ${TSA} 20`);
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(20);
    await until('A2 knows the 20 connections', () => externalEstablished('a2') >= known + 20);
    // A split on the beacons alone: A1 stops hearing A2 and serves on, A2 still hears A1.
    topology.exec('a1', [
      'nft',
      `add table inet nf_split; add chain inet nf_split in { type filter hook input priority -10; }; add rule inet nf_split in ip saddr ${hosts.a2} udp dport 19041 drop`,
    ]);
    await until('A1 declares A2 dead', () => !a1HearsA2());
    topology.exec('a1', ['nft', 'delete table inet nf_split']);
    await until('A1 hears A2 again', () => a1HearsA2());
    const commits = commitsOf('a1');
    // Once the split has healed A1 takes over what A2 carried meanwhile (nothing, here).
    await until('A1 commits what A2 carried', () => commitsOf('a1') > commits, 10_000);
    expect(await answering(fresh)).toBe(20);
    await until('A2 still knows the 20 connections', () => externalEstablished('a2') >= known + 20);
    topology.kill(agents.a1!, 'SIGKILL');
    await until('A2 alone holds and answers on the TSA', async () => {
      return (
        holdsTsa('a2') && !holdsTsa('a1') && (await fresh.ask(`tally ${TSA} 1`)).none === undefined
      );
    });
    expect(await answering(fresh)).toBe(20);
    expect(await answering(fresh)).toBe(20);
  });
});
