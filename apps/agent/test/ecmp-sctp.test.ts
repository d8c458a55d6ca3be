import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHoldingReporter } from './direct-hosts.ts';
import { EcmpLab, ecmpLabMissing, IPFES, SERVERS, type IpfeName } from './ecmp-lab.ts';
import { until } from './poll.ts';
import {
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
import { describeLab } from './lab.ts';

/**
 * SCTP associations to a TSA served active-active over BGP + ECMP (issue 18), on the lab of
 * ecmp-lab.ts, with real usrsctp peers: a client behind the router, a server on s1 and s2 bound to
 * the TSA. The router hashes SCTP by ports as it does TCP; every IPFE sends an INIT by the weight
 * table on its source port, and a packet of an association it has no record of by the same table,
 * so an association moved to another IPFE reaches the same server — and so do both paths of a
 * multihomed association (the Target Set's primary and secondary TSA, the client's two addresses),
 * which the router hashes to IPFEs independently (issue 27 item 5).
 */
const unavailable = ecmpLabMissing ?? sctpPeerUnavailable();

const CLIENT_NET = '10.231.61';
const lab = new EcmpLab(`ipes${process.pid % 1000}`, '10.231.60', CLIENT_NET);
const { tsa: TSA, topology } = lab;
/** The client's address (the lab's client link, host 50). */
const CLIENT = `${CLIENT_NET}.50`;
/** The lab's forwarded port; its Target Set forwards both protocols (the schema's default). */
const PORT = 3868;
/** Multihomed: the Target Set's secondary TSA, the client's second address, their servers' port. */
const TSA2 = '10.231.60.101';
const CLIENT2 = `${CLIENT_NET}.51`;
const MH_PORT = 3869;
const sctpServers = {} as Record<(typeof SERVERS)[number], SctpServer>;

/**
 * Named counters, on each IPFE, of the SCTP packets reaching it for the TSA (`tsa_sctp`) and of the
 * INITs among them (`tsa_inits`: new associations), in a table of this test's own.
 */
function countSctp() {
  for (const slot of IPFES)
    lab.nft(slot, [
      'table netdev ecmpsctp {',
      '  counter tsa_sctp {}',
      '  counter tsa_inits {}',
      '  chain in {',
      '    type filter hook ingress device "eth0" priority -500;',
      `    ip daddr ${TSA} meta l4proto sctp counter name "tsa_sctp"`,
      `    ip daddr ${TSA} sctp chunk init exists counter name "tsa_inits"`,
      '  }',
      '}',
    ]);
}

const counted = (counter: 'tsa_sctp' | 'tsa_inits') => lab.counters('ecmpsctp', counter);

const since = (before: Record<IpfeName, number>, after: Record<IpfeName, number>) =>
  Object.fromEntries(IPFES.map((s) => [s, after[s] - before[s]])) as Record<IpfeName, number>;

/** Opens `count` single-homed associations from the client and waits until each has an echo. */
async function associate(count: number, options: { intervalMs?: number; timeoutMs?: number }) {
  const client = await startSctpClient(topology, 'client', {
    connect: [TSA],
    port: PORT,
    bind: [CLIENT],
    associations: count,
    ...options,
  });
  for (let i = 0; i < count; i++)
    await waitForLine(client.child, new RegExp(`^up ${i} s\\d$`), { timeoutMs: 20_000 });
  return client;
}

/** The associations the servers accepted from this client since `from` (counts per server). */
function acceptedFrom(client: SctpClient, from: Record<string, number>) {
  const ports = new Set(client.localPorts().values());
  return SERVERS.flatMap((s) =>
    sctpServers[s]
      .associations()
      .slice(from[s])
      .filter((a) => ports.has(a.port))
      .map((a) => ({ server: s, ...a })),
  );
}

const acceptedCounts = () =>
  Object.fromEntries(SERVERS.map((s) => [s, sctpServers[s].associations().length]));

describeLab('SCTP associations over active-active BGP and ECMP (issue 18)', unavailable, () => {
  beforeAll(async () => {
    await buildSctpPeer();
    lab.build();
    // usrsctp learns the host's addresses once, at start: the TSA must be held first.
    await until('s1 and s2 hold the TSA', () =>
      SERVERS.every((s) =>
        topology.exec(s, ['ip', '-4', 'addr', 'show', 'eth0']).stdout.includes(`${TSA}/`),
      ),
    );
    for (const s of SERVERS)
      sctpServers[s] = await startSctpServer(topology, s, { name: s, port: PORT, bind: [TSA] });
    countSctp();
    for (const slot of IPFES) lab.startAgent(slot);
    const config = lab.config(IPFES);
    expect(config.targetSets[0]!.protocols).toBe('both');
    await lab.push(config);
    await lab.untilRoutedThrough(IPFES, 45_000);
  }, 90_000);

  afterAll(() => lab.remove());

  it('spreads single-homed associations over the three IPFEs and over both servers, each server seeing the client', async () => {
    const count = 90;
    const before = counted('tsa_inits');
    const from = acceptedCounts();
    const client = await associate(count, { intervalMs: 1000, timeoutMs: 5000 });
    const stats = await client.stats();
    const tally: Record<string, number> = {};
    for (const a of stats) tally[a.server ?? 'none'] = (tally[a.server ?? 'none'] ?? 0) + 1;
    const byIpfe = since(before, counted('tsa_inits'));
    console.log(
      `SCTP associations by server ${JSON.stringify(tally)}, INITs by IPFE ${JSON.stringify(byIpfe)}`,
    );
    expectSpreadByWeights(tally, { s1: 1, s2: 1 });
    // An INIT may be sent again (a lost one): at least one per association.
    expect(Object.values(byIpfe).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(count);
    for (const slot of IPFES) expect(byIpfe[slot], slot).toBeGreaterThan(0);

    await until(
      `the servers report ${count} associations`,
      () => acceptedFrom(client, from).length >= count,
    );
    const localPorts = client.localPorts();
    const ports = new Set(localPorts.values());
    const mine = stats.map((a) => ({ server: a.server, port: localPorts.get(a.index) }));
    const accepted = acceptedFrom(client, from);
    expect(accepted.map((a) => a.address)).toEqual(Array(count).fill(CLIENT));
    const order = (x: { port?: number }, y: { port?: number }) => x.port! - y.port!;
    expect(accepted.map(({ server, port }) => ({ server, port })).sort(order)).toEqual(
      mine.sort(order),
    );
    await client.quit();
    // Their SHUTDOWNs reach the servers' lines on pipes of their own: none later than this test.
    await until(
      'the servers report the associations shut down',
      () =>
        SERVERS.flatMap((s) => sctpServers[s].lost()).filter((a) => ports.has(a.port)).length >=
        count,
    );
  }, 120_000);

  it("an IPFE's agent killed outright while 20 associations are held: every one goes on with its server through the others", async () => {
    const count = 20;
    const initsBefore = counted('tsa_inits');
    const from = acceptedCounts();
    const lostFrom = SERVERS.map((s) => sctpServers[s].lost().length);
    const client = await associate(count, { intervalMs: 100, timeoutMs: 5000 });
    // A2 carries some of them (the router hashes the ports): it received their INITs.
    expect(since(initsBefore, counted('tsa_inits')).a2).toBeGreaterThan(0);
    const held = await client.stats();
    const viaA2 = counted('tsa_sctp').a2;
    await until(
      'packets of the held associations through A2',
      () => counted('tsa_sctp').a2 > viaA2 + 10,
    );

    topology.kill(lab.agents.a2!, 'SIGKILL');
    await lab.untilRoutedThrough(['a1', 'b1']);
    const moved = await client.stats();
    const sctpBefore = counted('tsa_sctp');
    await until(
      '20 more messages echoed on each association',
      async () => (await client.stats()).every((a) => a.echoed > moved[a.index]!.sent + 20),
      30_000,
    );
    // Through the survivors: at least a packet for every 2 messages (usrsctp may bundle them).
    const through = since(sctpBefore, counted('tsa_sctp'));
    expect(through.a1 + through.b1).toBeGreaterThanOrEqual(10 * count);
    expect(through.a2).toBe(0);

    // The same associations on the same servers: none lost, none opened again, on either side.
    const after = await client.stats();
    expect(after.map((a) => a.server)).toEqual(held.map((a) => a.server));
    expect(acceptedFrom(client, from)).toHaveLength(count);
    for (const [i, s] of SERVERS.entries())
      expect(sctpServers[s].lost().slice(lostFrom[i])).toEqual([]);
    expect(linesOf(client.child).filter((line) => line.startsWith('lost '))).toEqual([]);
    expect(linesOf(client.child).filter((line) => line.startsWith('open '))).toHaveLength(count);
    await client.quit();
  }, 120_000);

  it('a multihomed association (the client’s two addresses, the primary and secondary TSA) reaches one server by both paths, through different IPFEs, and goes on by the secondary when the primary path is cut', async () => {
    const count = 12;
    // Every IPFE serves (the test before killed one).
    for (const slot of IPFES) if (!lab.running(slot)) lab.startAgent(slot);
    // The Target Set gains its secondary TSA (announced by the group too) and a port of its own.
    const base = lab.config(IPFES);
    // Each server has a second address (on its one link), where the secondary path reaches it.
    const second = { s1: '10.231.60.31', s2: '10.231.60.32' };
    for (const s of SERVERS)
      topology.exec(s, ['ip', 'addr', 'add', `${second[s]}/24`, 'dev', 'eth0']);
    await lab.push({
      ...base,
      options: { ...base.options, forwardedPorts: [PORT, MH_PORT] },
      appServers: base.appServers.map((server) => ({
        ...server,
        addresses: [...server.addresses, second[server.name as keyof typeof second]],
      })),
      targetSets: base.targetSets.map((ts) => ({
        ...ts,
        secondary: { address: TSA2, activeIpfe: 'A1' },
        servers: ts.servers.map((server, i) => ({
          ...server,
          secondaryAddress: second[SERVERS[i]!],
        })),
      })),
    });
    await lab.untilRoutedThrough(IPFES, 45_000);
    await until('the router routes the secondary TSA through the three IPFEs', () => {
      const { stdout } = topology.exec('router', ['ip', '-4', '-j', 'route', 'show', `${TSA2}/32`]);
      const routes = JSON.parse(stdout || '[]') as { nexthops?: unknown[] }[];
      return routes[0]?.nexthops?.length === IPFES.length;
    });
    // The servers hold both TSAs (a reporter holding both in place of the lab's), before their
    // multihomed peers start: usrsctp learns the host's addresses once.
    for (const s of SERVERS) {
      topology.kill(lab.reporters[s]!);
      lab.reporters[s] = startHoldingReporter(topology, s, {
        address: lab.hosts[s],
        holdTsa: `${TSA},${TSA2}`,
      });
    }
    await until('s1 and s2 hold the secondary TSA', () =>
      SERVERS.every((s) =>
        topology.exec(s, ['ip', '-4', 'addr', 'show', 'eth0']).stdout.includes(`${TSA2}/`),
      ),
    );
    // The reporters restarted: every IPFE sees both servers again before an association starts
    // (an IPFE that still took one for offline would send its packets elsewhere).
    await until('every IPFE sees s1 and s2 again', () =>
      IPFES.every((slot) => {
        const status = JSON.parse(lab.agentGet(slot, '/v1/status') || '{}') as {
          targetSets?: { servers: { state: string }[] }[];
        };
        const servers = status.targetSets?.[0]?.servers ?? [];
        return (
          servers.length === SERVERS.length &&
          servers.every((x) => x.state !== 'offline' && x.state !== 'initializing')
        );
      }),
    );
    const servers = {} as Record<(typeof SERVERS)[number], SctpServer>;
    for (const s of SERVERS)
      servers[s] = await startSctpServer(topology, s, {
        name: s,
        port: MH_PORT,
        bind: [TSA, TSA2],
      });
    topology.exec('client', ['ip', 'addr', 'add', `${CLIENT2}/24`, 'dev', 'eth0']);
    // Each IPFE notes the source ports of the packets it receives on either path.
    for (const slot of IPFES)
      lab.nft(slot, [
        'table netdev ecmpmh {',
        '  set primary { type inet_service; flags dynamic; }',
        '  set secondary { type inet_service; flags dynamic; }',
        '  chain in {',
        '    type filter hook ingress device "eth0" priority -500;',
        `    ip daddr ${TSA} sctp dport ${MH_PORT} add @primary { sctp sport }`,
        `    ip daddr ${TSA2} sctp dport ${MH_PORT} add @secondary { sctp sport }`,
        '  }',
        '}',
      ]);
    const seen = (path: 'primary' | 'secondary') =>
      Object.fromEntries(
        IPFES.map((slot) => {
          const { stdout } = topology.exec(slot, [
            'nft',
            '-j',
            'list',
            'set',
            'netdev',
            'ecmpmh',
            path,
          ]);
          const sets = (
            JSON.parse(stdout || '{"nftables":[]}') as {
              nftables: { set?: { elem?: number[] } }[];
            }
          ).nftables;
          return [slot, new Set(sets.find((i) => i.set)?.set?.elem ?? [])];
        }),
      ) as Record<IpfeName, Set<number>>;
    const ipfeOf = (path: 'primary' | 'secondary', port: number) =>
      IPFES.filter((slot) => seen(path)[slot].has(port));

    const client = await startSctpClient(topology, 'client', {
      connect: [[TSA, TSA2]],
      port: MH_PORT,
      bind: [CLIENT, CLIENT2],
      associations: count,
      intervalMs: 50,
    });
    for (let i = 0; i < count; i++)
      await waitForLine(client.child, new RegExp(`^up ${i} s\\d$`), { timeoutMs: 20_000 });
    const ports = [...client.localPorts().values()];
    // The secondary path carries heartbeats: each reaches an IPFE, and the server answers them.
    await until('heartbeats of every association on the secondary path', () =>
      ports.every((port) => ipfeOf('secondary', port).length > 0),
    );
    const paths = ports.map((port) => ({
      port,
      primary: ipfeOf('primary', port),
      secondary: ipfeOf('secondary', port),
    }));
    console.log(`multihomed associations, IPFEs of each path: ${JSON.stringify(paths)}`);
    // The router hashes each path on its own addresses: some go through two IPFEs.
    expect(paths.some((p) => p.primary.join() !== p.secondary.join())).toBe(true);
    const before = await client.stats();
    const linesBefore = linesOf(client.child).length;

    // The primary path cut at the router, both ways: the associations go on by the secondary.
    const router = topology.ns('router');
    const cut = spawnSync('ip', [
      'netns',
      'exec',
      router,
      'nft',
      `table inet mhcut { chain cut { type filter hook forward priority 0; ip daddr ${TSA} ip saddr ${CLIENT} drop; ip saddr ${TSA} ip daddr ${CLIENT} drop; }; }`,
    ]);
    expect(cut.status, cut.stderr?.toString()).toBe(0);
    try {
      for (let i = 0; i < count; i++)
        await waitForLine(
          client.child,
          new RegExp(`^path ${i} ${TSA.replaceAll('.', '\\.')} unreachable$`),
          { after: linesBefore },
        );
      const mid = await client.stats();
      await until(
        '20 more messages echoed on each association',
        async () => (await client.stats()).every((a) => a.echoed > mid[a.index]!.sent + 20),
        30_000,
      );
    } finally {
      spawnSync('ip', ['netns', 'exec', router, 'nft', 'delete table inet mhcut']);
    }
    // The same servers, none lost on either side, none opened again.
    const after = await client.stats();
    expect(after.map((a) => a.server)).toEqual(before.map((a) => a.server));
    for (const s of SERVERS) expect(servers[s].lost()).toEqual([]);
    expect(linesOf(client.child).filter((line) => line.startsWith('lost '))).toEqual([]);
    expect(linesOf(client.child).filter((line) => line.startsWith('open '))).toHaveLength(count);
    await client.quit();
  }, 180_000);
});
