import { type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configurationShape, type Configuration } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { startNetnsAgent } from './kernel-agents.ts';
import { startKernelClient, startNamedServer, Topology } from './netns-topology.ts';
import { until } from './poll.ts';
import { expectSpreadByWeights } from './spread.ts';
import { describeLab, labMissing } from './lab.ts';
import { withPortSlices } from '../src/testing.ts';

/**
 * The kernel data path (nftables DNAT through a Maglev bucket map, conntrack) on a real topology:
 * a client, the IPFE A1 and three servers, each in a network namespace.
 */
const missing = labMissing('nft', 'conntrack', 'arping');
const available = missing === null;
const SUBNET = '10.231.8';
const hosts = {
  a1: `${SUBNET}.11`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
  s3: `${SUBNET}.23`,
  client: `${SUBNET}.50`,
};
const TSA = `${SUBNET}.100`;
const TOKEN = 'kernel-token-0123456789abcdefghijklmnopqrst';
const dir = mkdtempSync(join(tmpdir(), 'ipfe-kernel-'));
const topology = new Topology(`ipk${process.pid % 10000}`, hosts);
const reporters: Record<string, ChildProcess> = {};
let agent: ChildProcess;
let client: { ask(line: string): Promise<Record<string, number> & { status?: unknown }> };

type ServerName = 's1' | 's2' | 's3';

function config(
  weights: number[],
  targetSet: { deleteAgeSeconds?: number; algorithm?: 'hash' | 'leastLoad' } = {},
  members: ServerName[] = ['s1', 's2', 's3'],
): Configuration {
  return configurationShape.parse({
    options: { ipfe: { A1: { address: hosts.a1 } }, connectTimeoutS: 2, connectTryIntervalS: 1 },
    xsiNetworks: [{ name: 'xsi', cidr: `${SUBNET}.0/24` }],
    appServers: withPortSlices(
      (['s1', 's2', 's3'] as const).map((s) => ({ name: s, addresses: [hosts[s]] })),
    ),
    targetSets: [
      {
        number: 1,
        family: 'ipv4',
        algorithm: 'hash',
        primary: { address: TSA, activeIpfe: 'A1' },
        ...targetSet,
        servers: members.map((s, i) => ({ address: hosts[s], weight: weights[i] })),
      },
    ],
  });
}

function startAgent() {
  const options = { control: `${hosts.a1}:8701`, stateDir: join(dir, 'a1'), token: TOKEN };
  agent = startNetnsAgent(topology, 'a1', { ...options, sync: false });
}

let revision = 1;

/** Pushes the next revision of a configuration from the client's side, as the OAM would. */
async function push(next: Configuration) {
  const file = join(dir, `revision-${++revision}.json`);
  writeFileSync(file, JSON.stringify(buildDocument(revision, next)));
  // After a restart the control API may come up after the data path: retried until it answers.
  await until(
    `revision ${revision} pushed`,
    async () => (await client.ask(`push http://${hosts.a1}:8701 ${TOKEN} ${file}`)).status === 200,
  );
}

/** A1's status, read from inside its namespace. */
async function statusOfA1(): Promise<{
  alarms: { code: number; name: string; severity: string; text: string }[];
}> {
  const script = `fetch('http://${hosts.a1}:8701/v1/status', { headers: { authorization: 'Bearer ${TOKEN}' } })
    .then((r) => r.json()).then((s) => console.log(JSON.stringify(s)))`;
  const out = topology.exec('a1', [process.execPath, '-e', script]).stdout.trim();
  return out ? JSON.parse(out) : { alarms: [] };
}

/** How many buckets of the map each server has (0: it takes no new connections). */
function buckets(): Record<ServerName, number> {
  const chain = topology.exec('a1', ['nft', 'list', 'chain', 'inet', 'ipfe_a1', 'to_servers']);
  const count = (s: ServerName) => chain.stdout.split(`: ${hosts[s]}`).length - 1;
  return { s1: count('s1'), s2: count('s2'), s3: count('s3') };
}

describeLab('the kernel data path', missing, () => {
  beforeAll(async () => {
    topology.build();
    topology.exec('a1', ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    for (const s of ['s1', 's2', 's3'] as const) {
      reporters[s] = startNamedServer(topology, s, hosts[s]);
    }
    mkdirSync(join(dir, 'a1'), { recursive: true });
    writeFileSync(
      join(dir, 'a1', 'config.json'),
      JSON.stringify(buildDocument(1, config([1, 2, 1]))),
    );
    startAgent();
    client = startKernelClient(topology);
    await until(
      'the TSA forwards',
      async () => (await client.ask(`tally ${TSA} 1`)).none === undefined,
    );
    await until('every server in the bucket map', async () => {
      const table = topology.exec('a1', ['nft', 'list', 'table', 'inet', 'ipfe_a1']).stdout;
      return (['s1', 's2', 's3'] as const).every((s) => table.includes(`: ${hosts[s]}`));
    });
  }, 60_000);

  afterAll(() => {
    if (available) topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('programs its own nftables table and forwards by the weights (1/2/1)', async () => {
    const table = topology.exec('a1', ['nft', 'list', 'table', 'inet', 'ipfe_a1']).stdout;
    expect(table).toMatch(/dnat ip to jhash ip saddr \. tcp sport mod 307 seed 0x[0-9a-f]+ map/);
    expect(table).toMatch(/ct timeout set "age_600_4"/);
    const tally = await client.ask(`tally ${TSA} 600`);
    expect(tally.none).toBeUndefined();
    expectSpreadByWeights(tally, { s1: 1, s2: 2, s3: 1 });
    // Bytes per TSA from nftables counters (IP packets): each connection at least its SYN, ACK and
    // FIN (≥ 40 bytes each) in, and its SYN-ACK and the server's name out.
    await until('bytes counted in /metrics', async () => {
      const { bytesIn, bytesOut } = await client.ask(`metrics http://${hosts.a1}:8701 ${TOKEN}`);
      return bytesIn! >= 600 * 120 && bytesOut! >= 600 * 80;
    });
  });

  it('keeps open connections through a new configuration and through an agent restart', async () => {
    const held = await client.ask(`hold ${TSA} 30`);
    // The kernel path's counters come from conntrack: the status shows each server's open connections.
    await until('open connections counted per server', async () => {
      const active = await client.ask(`status http://${hosts.a1}:8701 ${TOKEN}`);
      return (['s1', 's2', 's3'] as const).every((s) => (active[hosts[s]] ?? 0) === (held[s] ?? 0));
    });
    expect(Object.values(held).reduce((x: number, y) => x + Number(y), 0)).toBe(30);
    await push(config([3, 1, 1]));
    expect(await client.ask('alive')).toEqual(held);
    topology.kill(agent);
    startAgent();
    await until(
      'the restarted agent forwards',
      async () => (await client.ask(`tally ${TSA} 3`)).none === undefined,
    );
    expect(await client.ask('alive')).toEqual(held); // the connections live in conntrack, not in the agent
  });

  it('removes its address and table at a clean stop; open connections live on to the restart', async () => {
    const held = await client.ask('alive');
    const exited = new Promise((r) => agent.once('exit', r));
    topology.kill(agent, 'SIGTERM');
    await exited;
    expect(topology.exec('a1', ['ip', 'addr', 'show', 'eth0']).stdout).not.toContain(TSA);
    expect(topology.exec('a1', ['nft', 'list', 'table', 'inet', 'ipfe_a1']).status).not.toBe(0);
    startAgent();
    await until(
      'the restarted agent forwards',
      async () => (await client.ask(`tally ${TSA} 3`)).none === undefined,
    );
    expect(await client.ask('alive')).toEqual(held);
  });

  it('programs its table again when someone deletes it, and forwards on', async () => {
    // Open connections are not promised to survive this: while the table is gone, a packet to the
    // TSA (still on the node) is delivered locally, and the node's own stack resets it.
    topology.exec('a1', ['nft', 'delete', 'table', 'inet', 'ipfe_a1']);
    await until(
      'the table back',
      () => topology.exec('a1', ['nft', 'list', 'table', 'inet', 'ipfe_a1']).status === 0,
    );
    await until(
      'new connections forwarded',
      async () => (await client.ask(`tally ${TSA} 10`)).none === undefined,
    );
    await client.ask(`hold ${TSA} 30`); // open connections on every server for what follows
  });

  it('raises 5004 while nftables refuses its rules, and clears it once they are in again', async () => {
    // Someone puts a table of the agent's name in place with a chain its rules cannot take (a
    // filter chain where the agent declares a NAT one); the next configuration cannot be installed.
    const foreign = [
      'delete table inet ipfe_a1',
      'add table inet ipfe_a1',
      'add chain inet ipfe_a1 to_servers { type filter hook input priority 0; policy accept; }',
    ].join('\n');
    expect(topology.exec('a1', ['sh', '-c', `printf '%s\\n' '${foreign}' | nft -f -`]).status).toBe(
      0,
    );
    await push(config([1, 2, 1]));
    const raised = await until('A1 raises 5004', async () =>
      (await statusOfA1()).alarms.find((a) => a.code === 5004),
    );
    expect(raised).toMatchObject({ name: 'IP Tables Configuration Error', severity: 'critical' });
    expect(raised.text).toMatch(/^The forwarding rules could not be installed: /);
    topology.exec('a1', ['nft', 'delete', 'table', 'inet', 'ipfe_a1']);
    await until(
      '5004 cleared, the rules in again',
      async () =>
        (await statusOfA1()).alarms.every((a) => a.code !== 5004) &&
        topology
          .exec('a1', ['nft', 'list', 'chain', 'inet', 'ipfe_a1', 'to_servers'])
          .stdout.includes('dnat'),
    );
    await until(
      'new connections forwarded',
      async () => (await client.ask(`tally ${TSA} 10`)).none === undefined,
    );
  });

  it('closes connections idle for Delete Age (ct timeout), and only those', async () => {
    const old = await client.ask('alive');
    await push(config([3, 1, 1], { deleteAgeSeconds: 10 }));
    await until('the 10 s policy programmed', () =>
      topology.exec('a1', ['nft', 'list', 'table', 'inet', 'ipfe_a1']).stdout.includes('age_10_4'),
    );
    // Opened under the 10 s policy; the older connections keep the 600 s one they were born with.
    const total = (tally: Record<string, unknown>) =>
      Object.values(tally).reduce((a: number, b) => a + Number(b), 0);
    const heldSoFar = total(await client.ask(`hold ${TSA} 0`)); // every one held, open or not
    expect(total(await client.ask(`hold ${TSA} 6`))).toBe(heldSoFar + 6);
    // conntrack carries the young connections' Delete Age. (The old ones outlived the agent's
    // table at the restart, and with it their policy: docs/agent.md.)
    const timeouts = [
      ...topology
        .exec('a1', ['conntrack', '-L', '-p', 'tcp', '--orig-dst', TSA, '--state', 'ESTABLISHED'])
        .stdout.matchAll(/^tcp\s+6\s+(\d+) /gm),
    ].map((m) => Number(m[1]));
    expect(timeouts.filter((t) => t <= 10)).toHaveLength(6);
    await new Promise((r) => setTimeout(r, 12_000)); // idle: nothing may touch them meanwhile
    expect(await client.ask('alive')).toEqual(old);
    await push(config([3, 1, 1]));
  }, 30_000);

  it('sends nothing new to a server that reports halting, and keeps its open connections', async () => {
    const held = await client.ask('alive');
    expect(held.s2).toBeGreaterThan(0);
    reporters.s2!.stdin!.write('{"state":"halting"}\n');
    await until('s2 out of the map', () => buckets().s2 === 0);
    expect(await client.ask('alive')).toEqual(held);
    const tally = await client.ask(`tally ${TSA} 40`);
    expect(tally.s2).toBeUndefined();
    expect(tally.none).toBeUndefined();
    reporters.s2!.stdin!.write('{"state":"normal"}\n');
    await until('s2 back in the map', () => buckets().s2 > 0);
  });

  it('drains a server whose weight becomes 0: no new connections, open ones stay', async () => {
    const held = await client.ask('alive');
    await push(config([3, 0, 1]));
    await until('s2 out of the map', () => buckets().s2 === 0);
    expect(await client.ask('alive')).toEqual(held);
    expect((await client.ask(`tally ${TSA} 40`)).s2).toBeUndefined();
    await push(config([3, 1, 1]));
    await until('s2 back in the map', () => buckets().s2 > 0);
  });

  it('closes only the connections of a server the new configuration removes', async () => {
    const held = await client.ask('alive');
    expect(held.s3).toBeGreaterThan(0);
    await push(config([3, 1], {}, ['s1', 's2']));
    await until('s3 removed: its connections gone', async () => {
      return (await client.ask('alive')).s3 === undefined;
    });
    expect(await client.ask('alive')).toEqual({ ...held, s3: undefined });
    await push(config([3, 1, 1]));
    await until('s3 back in the map', () => buckets().s3 > 0);
    await client.ask(`hold ${TSA} 20`); // open connections on every server again, for what follows
  });

  it('gives fewer new connections to a server reporting higher load (Least Load)', async () => {
    await push(config([1, 1, 1], { algorithm: 'leastLoad' }));
    reporters.s1!.stdin!.write('{"mps":90,"connections":90}\n');
    // The map follows the reported loads: s1's share of buckets falls below the others'.
    await until('s1 loses buckets', () => {
      const b = buckets();
      return b.s1 > 0 && b.s1 * 2 < Math.min(b.s2, b.s3);
    });
    const tally = await client.ask(`tally ${TSA} 300`);
    expect(tally.s1 ?? 0).toBeLessThan(Math.min(tally.s2 ?? 0, tally.s3 ?? 0) / 2);
    reporters.s1!.stdin!.write('{"mps":0,"connections":0}\n');
    await push(config([3, 1, 1]));
  });

  it("deletes an offline server's connections and sends new ones elsewhere", async () => {
    const before = await client.ask('alive');
    expect(before.s1).toBeGreaterThan(0);
    topology.kill(reporters.s1!);
    await until(
      's1 offline: its connections gone',
      async () => (await client.ask('alive')).s1 === undefined,
    );
    const after = await client.ask('alive');
    expect(after.s2).toBe(before.s2);
    expect(after.s3).toBe(before.s3);
    const tally = await client.ask(`tally ${TSA} 60`);
    expect(tally.s1).toBeUndefined();
    expect(tally.none).toBeUndefined();
  });

  it('refuses new connections when no server takes them, and counts the refusals in /metrics', async () => {
    const metrics = `http://${hosts.a1}:8701 ${TOKEN}`;
    // Counted since the table was last made (a transient refusal before this test counts too),
    // and exported before this test refuses anything: a count, not a missing line (null, which
    // `before + 5` below would read as 0).
    const before = (await client.ask(`metrics ${metrics}`)).noServer!;
    expect(Number.isInteger(before)).toBe(true);
    topology.kill(reporters.s2!);
    topology.kill(reporters.s3!);
    await until('no server takes new connections', async () => {
      const table = topology.exec('a1', ['nft', 'list', 'chain', 'inet', 'ipfe_a1', 'to_servers']);
      return table.stdout.includes('counter name "refused_1" reject with tcp reset');
    });
    const tally = await client.ask(`tally ${TSA} 5`);
    expect(tally).toEqual({ none: 5 });
    await until('five refusals counted', async () => {
      return (await client.ask(`metrics ${metrics}`)).noServer === before + 5;
    });
  });
});
