import { afterAll, beforeAll, expect, it } from 'vitest';
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
 * so an association moved to another IPFE reaches the same server.
 */
const unavailable = ecmpLabMissing ?? sctpPeerUnavailable();

const CLIENT_NET = '10.231.61';
const lab = new EcmpLab(`ipes${process.pid % 1000}`, '10.231.60', CLIENT_NET);
const { tsa: TSA, topology } = lab;
/** The client's address (the lab's client link, host 50). */
const CLIENT = `${CLIENT_NET}.50`;
/** The lab's forwarded port; its Target Set forwards both protocols (the schema's default). */
const PORT = 3868;
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
});
