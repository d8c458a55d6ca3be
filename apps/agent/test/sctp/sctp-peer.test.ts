import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Topology } from '../netns-topology.ts';
import { until } from '../poll.ts';
import {
  addSecondNetwork,
  buildSctpPeer,
  linesOf,
  runSctpRate,
  setBridgePort,
  sctpPeerUnavailable,
  startSctpClient,
  startSctpServer,
  waitForLine,
  type SctpServer,
} from './sctp-peer.ts';
import { describeLab, labMissing } from '../lab.ts';

/**
 * The usrsctp peer the SCTP tests and benchmarks use, on its own (no IPFE): a client and three
 * servers in namespaces on one bridge, and a second bridge for a multihomed client and server.
 */
const unavailable = labMissing('nft') ?? sctpPeerUnavailable();

const A = '10.231.15';
const B = '10.231.16';
const hosts = { client: `${A}.50`, s1: `${A}.21`, s2: `${A}.22`, s3: `${A}.23` };
const second = { client: `${B}.50`, s1: `${B}.21` };
const topology = new Topology(`sp${process.pid % 10000}`, hosts);
const PORT = 3868;

/** Counts in a host's namespace, per link, the SCTP packets coming in from each source. */
function countSources(host: string) {
  const table = `table inet sp_sources {
    chain input { type filter hook input priority 0; policy accept;
      ${['eth0', 'eth1']
        .flatMap((link) =>
          [hosts.client, second.client].map(
            (source) => `iifname "${link}" meta l4proto sctp ip saddr ${source} counter`,
          ),
        )
        .join('\n')}
    }
  }`;
  const loaded = spawnSync('ip', ['netns', 'exec', topology.ns(host), 'nft', '-f', '-'], {
    input: table,
    encoding: 'utf8',
  });
  if (loaded.status !== 0) throw new Error(`nft: ${loaded.stderr}`);
  return () => {
    const listed = topology.exec(host, ['nft', 'list', 'table', 'inet', 'sp_sources']).stdout;
    const counts: Record<string, number> = {};
    for (const m of listed.matchAll(/iifname "(\w+)".*saddr ([\d.]+) counter packets (\d+)/g))
      counts[`${m[1]} from ${m[2]}`] = Number(m[3]);
    return counts;
  };
}

describeLab('the SCTP peer (usrsctp) between namespaces', unavailable, () => {
  beforeAll(async () => {
    await buildSctpPeer();
    topology.build();
    addSecondNetwork(topology, second);
  });

  afterAll(() => topology.remove());

  it('serves 30 associations over three servers, each seeing the client’s own address', async () => {
    const servers = {} as Record<'s1' | 's2' | 's3', SctpServer>;
    for (const s of ['s1', 's2', 's3'] as const)
      servers[s] = await startSctpServer(topology, s, { name: s, port: PORT, bind: [hosts[s]] });
    const targets = [hosts.s1, hosts.s2, hosts.s3];
    const client = await startSctpClient(topology, 'client', {
      connect: targets,
      port: PORT,
      bind: [hosts.client],
      associations: 30,
    });
    for (let i = 0; i < 30; i++) await waitForLine(client.child, new RegExp(`^up ${i} `));

    const ports = client.localPorts();
    expect(new Set(ports.values()).size).toBe(30);
    for (const [n, s] of (['s1', 's2', 's3'] as const).entries()) {
      const mine = [...ports].filter(([i]) => i % 3 === n).map(([, port]) => port);
      expect(servers[s].associations().sort((x, y) => x.port - y.port)).toEqual(
        mine.sort((x, y) => x - y).map((port) => ({ address: hosts.client, port })),
      );
    }
    await until('every association echoed 3 messages', async () =>
      (await client.stats()).every((a) => a.echoed >= 3),
    );
    for (const a of await client.stats()) expect(a.server).toBe(`s${(a.index % 3) + 1}`);

    await client.quit();
    await until('the servers saw the associations shut down', () =>
      Object.values(servers).every((s) => s.lost().length === 10),
    );
    for (const s of Object.values(servers))
      expect(s.lost().every((l) => l.address === hosts.client && l.why === 'shutdown')).toBe(true);
  });

  it('opens and closes associations as fast as it can, for a benchmark', async () => {
    const rate = await runSctpRate(topology, 'client', {
      connect: hosts.s2,
      port: PORT,
      bind: [hosts.client],
      seconds: 1,
    });
    expect(rate.failed).toBe(0);
    expect(rate.associations).toBeGreaterThan(0);
    console.log(`associations opened and closed in 1 s, one thread: ${rate.associations}`);
  });

  it('keeps a multihomed association on its server when the primary path is cut', async () => {
    // A second server in s1's namespace, on both networks: several usrsctp peers share one.
    const server = await startSctpServer(topology, 's1', {
      name: 'm1',
      port: PORT + 1,
      bind: [hosts.s1, second.s1],
    });
    const sources = countSources('s1');
    const client = await startSctpClient(topology, 'client', {
      connect: [[hosts.s1, second.s1]],
      port: PORT + 1,
      bind: [hosts.client, second.client],
      associations: 1,
      intervalMs: 50,
    });
    await waitForLine(client.child, /^up 0 m1$/);
    expect(server.associations()).toEqual([{ address: hosts.client, port: expect.any(Number) }]);
    await until(
      'heartbeats on the secondary path',
      () => (sources()[`eth1 from ${B}.50`] ?? 0) > 0,
    );

    const only = async () => {
      const [association] = await client.stats();
      if (!association) throw new Error('the client reported no association');
      return association;
    };
    const before = await only();
    const cut = Date.now();
    setBridgePort(topology, 'client', 'eth0', false);
    await waitForLine(
      client.child,
      new RegExp(`^path 0 ${hosts.s1.replaceAll('.', '\\.')} unreachable$`),
    );
    const unreachableMs = Date.now() - cut;
    await until(
      'every message sent before the cut echoed',
      async () => (await only()).echoed > before.sent,
    );
    const caughtUpMs = Date.now() - cut;
    await until(
      '20 more messages echoed on the secondary path',
      async () => (await only()).echoed > before.sent + 20,
    );
    console.log(
      `multihomed failover: every message sent before the cut echoed ${caughtUpMs} ms after it; ` +
        `primary path reported unreachable after ${unreachableMs} ms`,
    );

    const after = await only();
    // The same association on the same server: no new one on either side, none lost.
    expect(after.server).toBe('m1');
    expect(server.associations()).toEqual([
      { address: hosts.client, port: client.localPorts().get(0) },
    ]);
    expect(server.lost()).toEqual([]);
    expect(linesOf(client.child).filter((line) => /^(lost|open) /.test(line))).toEqual([
      `open 0 ${client.localPorts().get(0)}`,
    ]);
    // Each path carried its own addresses, as a kernel SCTP stack would send them.
    const counts = sources();
    expect(counts[`eth0 from ${B}.50`]).toBe(0);
    expect(counts[`eth1 from ${A}.50`]).toBe(0);
    expect(counts[`eth0 from ${A}.50`]).toBeGreaterThan(0);

    setBridgePort(topology, 'client', 'eth0', true);
    await client.quit();
  });
});
