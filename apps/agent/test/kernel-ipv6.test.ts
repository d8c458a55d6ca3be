import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { prepareMates, startNetnsAgent, untilExternalCacheHolds } from './kernel-agents.ts';
import { startKernelClient, Topology } from './netns-topology.ts';
import { until } from './poll.ts';
import { expectSpreadByWeights } from './spread.ts';
import { describeLab, labMissing } from './lab.ts';

/**
 * The kernel data path for an IPv6 Target Set, with IPv6 mates: ip6 DNAT by the weights, the
 * takeover announced by an unsolicited neighbour advertisement, and the connections open through
 * A1 going on through A2 (conntrackd between the mates over IPv6).
 */
const missing = labMissing('nft', 'conntrack', 'conntrackd');
const available = missing === null;
const PREFIX = 'fd00:231:11:';
const hosts = {
  a1: `${PREFIX}:11`,
  a2: `${PREFIX}:12`,
  s1: `${PREFIX}:21`,
  s2: `${PREFIX}:22`,
  client: `${PREFIX}:50`,
};
const TSA = `${PREFIX}:100`;
const TOKEN = 'kernel-ipv6-token-0123456789abcdefghijklmn';
const dir = mkdtempSync(join(tmpdir(), 'ipfe-k6-'));
const topology = new Topology(`ip6k${process.pid % 1000}`, hosts);
let client: { ask(line: string): Promise<Record<string, number>> };
/** The connections held open through A1 before the cut, by server. */
let held: Record<string, number> = {};

function startAgent(slot: 'a1' | 'a2'): ChildProcess {
  const options = { control: `[${hosts[slot]}]:8701`, stateDir: join(dir, slot), token: TOKEN };
  return startNetnsAgent(topology, slot, { ...options, sync: true });
}

const holdsTsa = (slot: 'a1' | 'a2') =>
  topology.exec(slot, ['ip', '-6', 'addr', 'show', 'eth0']).stdout.includes(`${TSA}/128`);

const macOf = (slot: 'a1' | 'a2') =>
  /link\/ether (\S+)/.exec(topology.exec(slot, ['ip', 'link', 'show', 'eth0']).stdout)?.[1];

/** A host's neighbour entry for the TSA: the MAC it sends to, and the entry's state. */
function neighbourOfTsa(host: 'client' | 's1' | 's2') {
  const line = topology.exec(host, ['ip', '-6', 'neigh', 'show', TSA, 'dev', 'eth0']).stdout;
  return { mac: /lladdr (\S+)/.exec(line)?.[1], state: line.trim().split(/\s+/).at(-1) };
}

const untilMateKnows = (slot: 'a1' | 'a2', connections: number) =>
  untilExternalCacheHolds(topology, slot, join(dir, slot), connections);

describeLab('the kernel data path for an IPv6 Target Set', missing, () => {
  beforeAll(async () => {
    topology.build();
    prepareMates(topology, dir, { hosts, cidr: `${PREFIX}:/64`, tsa: TSA, weights: [1, 3] });
    startAgent('a1');
    startAgent('a2');
    client = startKernelClient(topology);
    await until('A1 forwards on the TSA', async () => {
      const tally = await client.ask(`tally ${TSA} 2`);
      return tally.none === undefined && holdsTsa('a1');
    });
    await until('both servers in the bucket map', () => {
      const table = topology.exec('a1', ['nft', 'list', 'table', 'inet', 'ipfe_a1']).stdout;
      return table.includes(`: ${hosts.s1}`) && table.includes(`: ${hosts.s2}`);
    });
  }, 30_000);

  afterAll(() => {
    if (available) topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('DNATs IPv6 connections (ip6 rules) to the servers by the weights (1/3)', async () => {
    const table = topology.exec('a1', ['nft', 'list', 'table', 'inet', 'ipfe_a1']).stdout;
    expect(table).toMatch(/dnat ip6 to jhash ip6 saddr \. tcp sport mod \d+ seed 0x[0-9a-f]+ map/);
    expect(table).toContain(`ct original ip6 daddr ${TSA} snat ip6 to ${TSA}`);
    expect(table).toMatch(/ct timeout set "age_\d+_6"/);
    const tally = await client.ask(`tally ${TSA} 600`);
    expect(tally.none).toBeUndefined();
    expectSpreadByWeights(tally, { s1: 1, s2: 3 });
  });

  it("A2 takes the TSA over when A1 is cut off, and its neighbour advertisement moves the client to A2's MAC", async () => {
    held = await client.ask(`hold ${TSA} 20`);
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(20);
    await untilMateKnows('a2', 20);
    const [a1Mac, a2Mac] = [macOf('a1'), macOf('a2')];
    expect(a1Mac).toBeDefined();
    expect(a2Mac).not.toBe(a1Mac);
    // The client (and each server, for its replies) has resolved the TSA to A1: a live entry,
    // which it keeps for up to 45 s (REACHABLE), then uses unchecked until it sends (STALE).
    for (const host of ['client', 's1', 's2'] as const) {
      const before = neighbourOfTsa(host);
      expect(before.mac).toBe(a1Mac);
      expect(['REACHABLE', 'STALE', 'DELAY']).toContain(before.state);
    }
    expect(holdsTsa('a2')).toBe(false);

    topology.exec('a1', ['ip', 'link', 'set', 'eth0', 'down']);
    // Nothing is sent to the TSA from here until the entries are read: no host has a reason to
    // resolve it again, so only A2's unsolicited advertisement (override flag) can change them.
    await until('A2 holds the TSA', () => holdsTsa('a2'), 5_000);
    await until(
      "the client's and the servers' neighbour entries for the TSA at A2's MAC",
      () => (['client', 's1', 's2'] as const).every((h) => neighbourOfTsa(h).mac === a2Mac),
      2_000,
    );
  });

  it('keeps the connections open through A1 working through A2', async () => {
    await until(
      'A2 answers on the TSA',
      async () => (await client.ask(`tally ${TSA} 1`)).none === undefined,
    );
    await until(
      'the open connections answer through A2',
      async () => JSON.stringify(await client.ask('alive')) === JSON.stringify(held),
      10_000,
    );
    // A2's kernel carries them: conntrackd committed A1's entries on the takeover.
    const entries = topology.exec('a2', [
      'conntrack',
      '-L',
      '-p',
      'tcp',
      '--orig-dst',
      TSA,
      '--state',
      'ESTABLISHED',
    ]).stdout;
    expect(entries.match(/^tcp\s/gm)?.length ?? 0).toBeGreaterThanOrEqual(20);
  });
});
