import { type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configurationShape, type Configuration } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import {
  spawnDiameterClient,
  startDiameterServer,
  stopDiameterPeers,
  type DiameterClient,
} from './diameter/diameter.ts';
import { startHoldingReporter, startNamingService, stateDirWith } from './direct-hosts.ts';
import { startNetnsAgent } from './kernel-agents.ts';
import { startKernelClient, Topology } from './netns-topology.ts';
import { until } from './poll.ts';
import { expectSpreadByWeights } from './spread.ts';
import { describeLab, labMissing } from './lab.ts';
import { portSlice, withPortSlices } from '../src/testing.ts';

/**
 * The direct (transparent) data path on a real topology: a client, the mates A1 and A2 and three
 * servers holding the TSA (the reporter's --hold-tsa), one bridge. The IPFE forwards client →
 * server packets unchanged; the servers see the client and answer it directly.
 */
const missing = labMissing('nft', 'arping');
const available = missing === null;
const SUBNET = '10.231.14';
const hosts = {
  a1: `${SUBNET}.11`,
  a2: `${SUBNET}.12`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
  s3: `${SUBNET}.23`,
  client: `${SUBNET}.50`,
};
const TSA = `${SUBNET}.100`;
const TOKEN = 'direct-token-0123456789abcdefghijklmnopqrst';
const SERVERS = ['s1', 's2', 's3'] as const;
type ServerName = (typeof SERVERS)[number];

const dir = mkdtempSync(join(tmpdir(), 'ipfe-direct-'));
const topology = new Topology(`ipd${process.pid % 10000}`, hosts);
const agents: Partial<Record<'a1' | 'a2', ChildProcess>> = {};
const reporters: Partial<Record<ServerName, ChildProcess>> = {};
/** Source addresses each server's service has seen. */
const peers: Record<ServerName, string[]> = { s1: [], s2: [], s3: [] };
let client: { ask(line: string): Promise<Record<string, number> & { status?: unknown }> };
let revision = 1;

const DIAMETER_PORT = 3869;

function config(
  weights: number[],
  targetSet: { deleteAgeSeconds?: number; algorithm?: 'hash' | 'leastLoad' } = {},
): Configuration {
  return configurationShape.parse({
    options: {
      ipfe: { A1: { address: hosts.a1 }, A2: { address: hosts.a2 } },
      forwardedPorts: [3868, DIAMETER_PORT],
      mateIntervalMs: 100,
      mateTimeoutMs: 600,
      connectTimeoutS: 2,
    },
    xsiNetworks: [{ name: 'xsi', cidr: `${SUBNET}.0/24` }],
    appServers: withPortSlices(SERVERS.map((s) => ({ name: s, addresses: [hosts[s]] }))),
    targetSets: [
      {
        number: 1,
        family: 'ipv4',
        algorithm: 'hash',
        initiatorSupport: true,
        primary: { address: TSA, activeIpfe: 'A1' },
        ...targetSet,
        servers: SERVERS.map((s, i) => ({ address: hosts[s], weight: weights[i] })),
      },
    ],
  });
}

function startAgent(slot: 'a1' | 'a2') {
  agents[slot] = startNetnsAgent(topology, slot, {
    control: `${hosts[slot]}:8701`,
    stateDir: join(dir, slot),
    token: TOKEN,
    sync: false,
    dataplane: 'direct',
  });
  // AGENT_LOG_LEVEL=info keeps each agent's log in /tmp/ipfe-direct-<slot>.log, for a failure.
  if (process.env.AGENT_LOG_LEVEL) {
    const log = createWriteStream(join(tmpdir(), `ipfe-direct-${slot}.log`), { flags: 'a' });
    agents[slot]!.stdout!.pipe(log);
  }
}

function startServer(s: ServerName) {
  reporters[s] = startHoldingReporter(topology, s, { address: hosts[s], holdTsa: TSA });
}

async function push(next: Configuration) {
  const file = join(dir, `revision-${++revision}.json`);
  writeFileSync(file, JSON.stringify(buildDocument(revision, next)));
  const running = (['a1', 'a2'] as const).filter(
    (slot) => agents[slot]?.exitCode === null && agents[slot]?.signalCode === null,
  );
  for (const slot of running)
    await until(
      `revision ${revision} pushed to ${slot}`,
      async () =>
        (await client.ask(`push http://${hosts[slot]}:8701 ${TOKEN} ${file}`)).status === 200,
    );
}

let diameterServers = false;
async function startDiameterServers() {
  if (diameterServers) return;
  diameterServers = true;
  for (const s of SERVERS)
    await startDiameterServer({
      host: TSA,
      port: DIAMETER_PORT,
      name: `${s}.example`,
      prefix: ['ip', 'netns', 'exec', topology.ns(s)],
    });
}

/** The flows an agent's direct path holds records of now, read from its nft sets. */
function recordsOf(slot: 'a1' | 'a2'): number {
  const { stdout } = topology.exec(slot, [
    'nft',
    '-j',
    'list',
    'sets',
    'table',
    'netdev',
    `ipfe_${slot}`,
  ]);
  const items = (
    JSON.parse(stdout || '{"nftables":[]}') as {
      nftables: { set?: { name: string; elem?: unknown[] } }[];
    }
  ).nftables;
  // The records' sets (rec_<tsa>_<server>), not the counters' ones.
  return items.reduce(
    (n, i) => n + (i.set?.name.startsWith('rec_') ? (i.set.elem?.length ?? 0) : 0),
    0,
  );
}

/** Waits until an agent knows every flow its mate holds a record of (told within a read of them). */
async function untilMateKnows(slot: 'a1' | 'a2') {
  const mate = slot === 'a1' ? 'a2' : 'a1';
  let last = '';
  await until(
    `${slot.toUpperCase()} knows the flows of ${mate.toUpperCase()}`,
    async () => {
      const { mateFlows = 0 } = await client.ask(`mateflows http://${hosts[slot]}:8701 ${TOKEN}`);
      const records = recordsOf(mate);
      last = `${mateFlows} known of ${records}`;
      return mateFlows >= records;
      // A read costs more on a busy machine, and the agent reads less often (5 % of a core).
    },
    45_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message} (${last})`);
  });
}

const holds = (slot: 'a1' | 'a2') =>
  topology.exec(slot, ['ip', 'addr', 'show', 'eth0']).stdout.includes(`${TSA}/`);
const holder = () => (holds('a1') ? 'a1' : holds('a2') ? 'a2' : null);

/** Bytes received and sent on a host's eth0. */
function interfaceBytes(host: string): { rx: number; tx: number } {
  const text = topology.exec(host, ['ip', '-s', '-j', 'link', 'show', 'eth0']).stdout;
  const stats = (
    JSON.parse(text) as { stats64: { rx: { bytes: number }; tx: { bytes: number } } }[]
  )[0]!.stats64;
  return { rx: stats.rx.bytes, tx: stats.tx.bytes };
}

/** Sends `bytes` through the TSA and reads them back from the server's echo. */
function roundTrip(bytes: number): number {
  const script = `
    const s = require('net').connect(3868, '${TSA}');
    let got = -1; // the first line is the server's name
    s.on('data', (d) => { if (got < 0) { const nl = d.indexOf(10); got = d.length - nl - 1; } else got += d.length;
      if (got >= ${bytes}) { console.log(got); s.destroy(); } });
    s.on('connect', () => s.end(Buffer.alloc(${bytes}, 120)));
    setTimeout(() => { console.log(got); process.exit(0); }, 15000).unref();`;
  const out = topology.exec('client', [process.execPath, '-e', script]).stdout;
  return Number(out.trim());
}

describeLab('the direct data path', missing, () => {
  beforeAll(async () => {
    topology.build();
    for (const s of SERVERS) {
      startServer(s);
      startNamingService(topology, s, 3868, (address) => peers[s].push(address));
    }
    for (const slot of ['a1', 'a2'] as const) {
      stateDirWith(dir, slot, config([1, 2, 1]));
      startAgent(slot);
    }
    client = startKernelClient(topology);
    await until(
      'the TSA forwards to every server',
      async () => {
        const tally = await client.ask(`tally ${TSA} 12`);
        return tally.none === undefined && SERVERS.every((s) => (tally[s] ?? 0) > 0);
      },
      30_000,
    );
    // On a loaded machine both agents may start without hearing each other, and A2 hold the TSA
    // for a moment: the client then keeps A2's MAC for it as long as its traffic confirms the
    // entry, and A2 forwards what still reaches it. What follows counts at A1: A1 alone holds the
    // TSA, and the client asks afresh who does.
    await until('A1 alone holds the TSA', () => holder() === 'a1' && !holds('a2'), 30_000);
    topology.exec('client', ['ip', 'neigh', 'flush', 'to', TSA, 'dev', 'eth0']);
  }, 90_000);

  afterAll(async () => {
    await stopDiameterPeers();
    if (available) topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('forwards by the weights (1/2/1), and every server sees the client’s own address', async () => {
    for (const s of SERVERS) peers[s].length = 0;
    const metrics = async () => {
      const { opened = 0, bytesIn = 0 } = await client.ask(
        `metrics http://${hosts.a1}:8701 ${TOKEN}`,
      );
      return { opened, bytesIn };
    };
    const before = await metrics();
    const tally = await client.ask(`tally ${TSA} 400`);
    expect(tally.none).toBeUndefined();
    expectSpreadByWeights(tally, { s1: 1, s2: 2, s3: 1 });
    // The agent counts what it forwarded: the connections opened, the bytes in.
    // The counters are read within 2 % of a core: on a loaded machine a read costs more, and the
    // reads come further apart (direct-data-plane.ts, COUNTER_READS).
    await until(
      'A1 counts the 400 connections and their bytes',
      async () => {
        const after = await metrics();
        return after.opened - before.opened >= 400 && after.bytesIn > before.bytesIn;
      },
      60_000,
    );
    // An operator can read what the agent programmed (nft 1.0.6 crashed on `typeof jhash` maps).
    expect(topology.exec('a1', ['sh', '-c', 'nft list ruleset > /dev/null']).status).toBe(0);
    const seen = SERVERS.flatMap((s) => peers[s]);
    expect(seen.length).toBeGreaterThanOrEqual(400);
    expect(new Set(seen)).toEqual(new Set([hosts.client]));
  }, 90_000);

  it('lets the servers’ replies go straight to the client: they never cross the IPFE', () => {
    const bytes = 4_000_000;
    const before = interfaceBytes('a1');
    expect(roundTrip(bytes)).toBe(bytes);
    const after = interfaceBytes('a1');
    // A1 receives the client's 4 MB and sends it on; the 4 MB of echo never reach it.
    expect(after.rx - before.rx).toBeGreaterThan(bytes);
    expect(after.rx - before.rx).toBeLessThan(bytes * 1.3);
    expect(after.tx - before.tx).toBeLessThan(bytes * 1.3);
  });

  it('keeps open connections on their servers through a configuration change', async () => {
    const held = await client.ask(`hold ${TSA} 30`);
    await push(config([3, 1, 1]));
    expect(await client.ask('alive')).toEqual(held);
  });

  it('sends the returns of a connection a server opened from the TSA to that server, by its port range', async () => {
    topology.run('client', [
      process.execPath,
      '-e',
      `require('net').createServer((c) => { c.on('error', () => {}); c.pipe(c); }).listen(7000, '${hosts.client}')`,
    ]);
    await new Promise((r) => setTimeout(r, 300));
    for (const [i, s] of SERVERS.entries()) {
      const port = portSlice(i).start + 7;
      const script = `
        const c = require('net').connect({ host: '${hosts.client}', port: 7000, localAddress: '${TSA}', localPort: ${port} });
        c.on('connect', () => c.write('from ${s}'));
        c.on('data', (d) => { console.log(String(d)); c.destroy(); });
        c.on('error', (e) => { console.log('error ' + e.code); });
        setTimeout(() => process.exit(0), 5000).unref();`;
      expect(topology.exec(s, [process.execPath, '-e', script]).stdout.trim()).toBe(`from ${s}`);
    }
  });

  it('A2 takes over when A1 is killed, and every held connection goes on to the same server', async () => {
    await push(config([1, 1, 1]));
    const held = await client.ask(`hold ${TSA} 20`);
    expect(Object.values(held).reduce((a: number, b) => a + Number(b), 0)).toBeGreaterThanOrEqual(
      20,
    );
    const alive = await client.ask('alive');
    // Those opened under earlier weights are found by their records only: A2 must have them.
    await untilMateKnows('a2');
    topology.kill(agents.a1!);
    await until('A2 holds the TSA', () => holds('a2'));
    await until('the client reaches A2', async () => {
      const tally = await client.ask(`tally ${TSA} 3`);
      return tally.none === undefined;
    });
    expect(await client.ask('alive')).toEqual(alive);
  });

  it('Least Load: a restarted A1 takes its TSA back with A2’s flows; killed again with 20 more held and a Diameter peer, nothing is lost', async () => {
    await startDiameterServers();
    const carried = await client.ask('alive'); // opened under three sets of weights
    startAgent('a1');
    await untilMateKnows('a1');
    // A1 preempts after its hold-off: A2 hands the TSA back, and A1 takes A2's flows with it.
    await until('A1 holds the TSA again', () => holder() === 'a1');
    await until('A2 lets it go', () => !holds('a2'));
    expect(await client.ask('alive')).toEqual(carried);

    await push(config([1, 1, 1], { algorithm: 'leastLoad' }));
    await client.ask(`hold ${TSA} 20`);
    const diameter: DiameterClient = spawnDiameterClient({
      host: TSA,
      port: DIAMETER_PORT,
      intervalMs: 1000,
      prefix: ['ip', 'netns', 'exec', topology.ns('client')],
    });
    const { originHost } = await diameter.capabilities();
    await diameter.dwa(3);
    const before = await client.ask('alive');
    await untilMateKnows('a2'); // the Diameter peer's too
    topology.kill(agents.a1!);
    await until('A2 holds the TSA', () => holds('a2'));
    const answered = diameter.dwas();
    await diameter.dwa(answered + 5);
    expect(await client.ask('alive')).toEqual(before);
    const { cea } = await diameter.stats();
    expect(cea).toBe(1); // the same connection, not a new one
    expect(diameter.lines.some((l) => l.text.startsWith('lost'))).toBe(false);
    expect(diameter.lines.filter((l) => l.text.startsWith('dwa')).at(-1)?.text).toContain(
      originHost,
    );
  });

  it('closes the connections of a server that goes offline, and sends new ones elsewhere', async () => {
    const before = await client.ask('alive');
    expect(before.s1).toBeGreaterThan(0);
    topology.kill(reporters.s1!); // its heartbeats stop; the service and the TSA stay
    await until('s1 offline: its connections closed', async () => {
      const alive = await client.ask('alive');
      return alive.s1 === undefined;
    });
    const after = await client.ask('alive');
    expect(after.s2).toBe(before.s2);
    expect(after.s3).toBe(before.s3);
    const tally = await client.ask(`tally ${TSA} 30`);
    expect(tally.s1).toBeUndefined();
    expect(tally.none).toBeUndefined();
    startServer('s1');
  });

  it('closes connections idle for Delete Age, and only those', async () => {
    await startDiameterServers();
    await push(config([1, 1, 1], { deleteAgeSeconds: 10 }));
    const busy = spawnDiameterClient({
      host: TSA,
      port: DIAMETER_PORT,
      intervalMs: 1000,
      prefix: ['ip', 'netns', 'exec', topology.ns('client')],
    });
    await busy.capabilities();
    const held = await client.ask('alive');
    expect(Object.keys(held).length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 12_000)); // the held ones idle: nothing may touch them
    expect(await client.ask('alive')).toEqual({});
    expect(busy.lines.some((l) => l.text.startsWith('lost'))).toBe(false);
    expect(busy.dwas()).toBeGreaterThanOrEqual(10);
  });
  it('without a mate, counts the connections it opens every second, and those open at its next read of the records', async () => {
    startAgent('a1');
    const withMate = config([1, 1, 1]);
    await push({
      ...withMate,
      options: { ...withMate.options, ipfe: { ...withMate.options.ipfe, A2: null } },
    });
    await until('A1 alone holds the TSA', () => holder() === 'a1' && !holds('a2'), 30_000);
    const openedBy = async () =>
      (await client.ask(`metrics http://${hosts.a1}:8701 ${TOKEN}`)).opened ?? 0;
    const activeOn = async () =>
      Object.values(await client.ask(`status http://${hosts.a1}:8701 ${TOKEN}`)).reduce(
        (sum: number, n) => sum + Number(n),
        0,
      );
    const openedBefore = await openedBy();
    const activeBefore = await activeOn();
    const held = await client.ask(`hold ${TSA} 30`);
    expect(held.none).toBeUndefined();
    await until('A1 counts the 30 it opened', async () => (await openedBy()) - openedBefore >= 30);
    // Read every 5 s without a mate (its records are for the Status page alone).
    await until(
      'A1 shows the 30 open on its servers',
      async () => (await activeOn()) - activeBefore >= 30,
      20_000,
    );
  });
});
