import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configurationShape, type Configuration } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { a1Measurements } from './a1-measurements.ts';
import { startHoldingReporter, startNamingService, stateDirWith } from './direct-hosts.ts';
import { startNetnsAgent } from './kernel-agents.ts';
import { startKernelClient, Topology, type KernelClient } from './netns-topology.ts';
import { until } from './poll.ts';
import {
  buildSctpPeer,
  linesOf,
  sctpPeerUnavailable,
  startSctpClient,
  startSctpServer,
  waitForLine,
} from './sctp/sctp-peer.ts';
import { describeLab, labMissing } from './lab.ts';
import { withPortSlices } from '../src/testing.ts';

/**
 * The source product's measurements on the direct data path (issue 27 item 4), with real TCP and
 * SCTP traffic: a client, the IPFE A1 and two servers holding the TSAs, each in a network
 * namespace. Target Set 1 carries TCP, Target Set 2 only SCTP (so TCP to it, and SCTP to Target
 * Set 1, is unexpected); Target Set 3's one server has no host, so that every connection to it is
 * refused (TxReject).
 */
const missing = labMissing('nft', 'arping') ?? sctpPeerUnavailable();
const available = missing === null;
const SUBNET = '10.231.81';
const hosts = {
  a1: `${SUBNET}.11`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
  client: `${SUBNET}.50`,
};
const SERVERS = ['s1', 's2'] as const;
const TSA = `${SUBNET}.100`;
const TSA_SCTP = `${SUBNET}.101`;
const TSA_REFUSING = `${SUBNET}.102`;
const ABSENT_SERVER = `${SUBNET}.29`;
const PORT = { tcp: 3868, sctp: 3869 };
const TOKEN = 'direct-measure-token-0123456789abcdefghijk';
const dir = mkdtempSync(join(tmpdir(), 'ipfe-direct-measure-'));
const topology = new Topology(`idm${process.pid % 10000}`, hosts);
let client: KernelClient;
let revision = 1;

function config(accounting = true): Configuration {
  const servers = SERVERS.map((s) => ({ address: hosts[s] }));
  return configurationShape.parse({
    options: {
      ipfe: { A1: { address: hosts.a1 } },
      forwardedPorts: [PORT.tcp, PORT.sctp],
      connectTimeoutS: 2,
      accounting,
    },
    xsiNetworks: [{ name: 'xsi', cidr: `${SUBNET}.0/24` }],
    appServers: withPortSlices([
      ...SERVERS.map((s) => ({ name: s, addresses: [hosts[s]] })),
      { name: 'absent', addresses: [ABSENT_SERVER] },
    ]),
    targetSets: [
      {
        number: 1,
        family: 'ipv4',
        algorithm: 'hash',
        protocols: 'tcp',
        deleteAgeSeconds: 10,
        primary: { address: TSA, activeIpfe: 'A1' },
        servers,
      },
      {
        number: 2,
        family: 'ipv4',
        algorithm: 'hash',
        protocols: 'sctp',
        primary: { address: TSA_SCTP, activeIpfe: 'A1' },
        servers,
      },
      {
        number: 3,
        family: 'ipv4',
        algorithm: 'hash',
        protocols: 'tcp',
        primary: { address: TSA_REFUSING, activeIpfe: 'A1' },
        servers: [{ address: ABSENT_SERVER }],
      },
    ],
  });
}

const {
  fromA1,
  measurementsOf,
  targetSet,
  sentToServers,
  metric,
  settled,
  agreeing,
  bytesAgreeing,
} = a1Measurements(topology, {
  address: hosts.a1,
  token: TOKEN,
  family: 'netdev',
});

async function push(next: Configuration) {
  const file = join(dir, `revision-${++revision}.json`);
  writeFileSync(file, JSON.stringify(buildDocument(revision, next)));
  await until(
    `revision ${revision} pushed`,
    async () => (await client.ask(`push http://${hosts.a1}:8701 ${TOKEN} ${file}`)).status === 200,
  );
}

/** Opens `count` SCTP associations to `tsa`, each echoing a few messages, and shuts them down. */
async function sctpTraffic(tsa: string, count: number) {
  const sctp = await startSctpClient(topology, 'client', {
    connect: [tsa],
    port: PORT.sctp,
    bind: [hosts.client],
    associations: count,
    intervalMs: 100,
  });
  for (let i = 0; i < count; i++) await waitForLine(sctp.child, new RegExp(`^up ${i} s\\d$`));
  await until('5 echoes on each association', async () =>
    (await sctp.stats()).every((a) => a.echoed >= 5),
  );
  await sctp.quit();
}

describeLab('the direct data path’s measurements', missing, () => {
  beforeAll(async () => {
    await buildSctpPeer();
    topology.build();
    for (const s of SERVERS) {
      startHoldingReporter(topology, s, {
        address: hosts[s],
        holdTsa: `${TSA}@eth0,${TSA_SCTP}@eth0`,
      });
      startNamingService(topology, s, PORT.tcp, () => {});
    }
    // usrsctp learns the host's addresses once, at start: the TSAs must be there first.
    await until('every server holds the TSAs', () =>
      SERVERS.every((s) =>
        topology.exec(s, ['ip', '-4', 'addr', 'show']).stdout.includes(`${TSA_SCTP}/`),
      ),
    );
    for (const s of SERVERS)
      await startSctpServer(topology, s, { name: s, port: PORT.sctp, bind: [TSA_SCTP] });
    startNetnsAgent(topology, 'a1', {
      control: `${hosts.a1}:8701`,
      stateDir: stateDirWith(dir, 'a1', config()),
      token: TOKEN,
      sync: false,
      dataplane: 'direct',
    });
    client = startKernelClient(topology);
    await until(
      'the TSA forwards to both servers',
      async () => {
        const tally = await client.ask(`tally ${TSA} 8`);
        return tally.none === undefined && SERVERS.every((s) => (tally[s] ?? 0) > 0);
      },
      45_000,
    );
    await until(
      'an association through the SCTP TSA',
      async () => {
        const probe = await startSctpClient(topology, 'client', {
          connect: [TSA_SCTP],
          port: PORT.sctp,
          bind: [hosts.client],
          associations: 1,
        });
        const [line] = await waitForLine(probe.child, /^(up|lost) 0/, { timeoutMs: 8000 });
        if (line.startsWith('up')) await probe.quit();
        else topology.kill(probe.child);
        return line.startsWith('up');
      },
      45_000,
    );
  }, 120_000);

  afterAll(() => {
    if (available) topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts every byte the clients send to the TSA and the bytes sent on to each server, alike in the status and /metrics', async () => {
    const before = await settled(1, TSA);
    const tally = await client.ask(`tally ${TSA} 200`);
    expect(tally.none).toBeUndefined();
    // Every packet of these connections goes on to a server: once the counters are read after
    // the last one, what the servers were sent adds up to what the TSA received, to the byte.
    let last = '';
    const after = await until('the measurements read after the traffic', () => {
      const ts = targetSet(1);
      const received = ts.rxBytes! - before.rxBytes!;
      const sent = sentToServers(ts) - sentToServers(before);
      last = `${received} bytes received, ${sent} sent on: ${JSON.stringify(ts)}`;
      return received > 0 && received === sent && ts;
    }).catch((err: Error) => {
      throw new Error(`${err.message} (${last})`);
    });
    expect(after.rxBytes! - before.rxBytes!).toBeGreaterThanOrEqual(200 * 3 * 52);
    for (const s of SERVERS) {
      const sent = (ts: typeof after) => ts.servers.find((x) => x.address === hosts[s])!.txBytes!;
      expect(sent(after) > sent(before), `bytes sent to ${s}`).toBe((tally[s] ?? 0) > 0);
    }
    expect(after.rxSctpBytes).toBe(before.rxSctpBytes);
    expect(after.unexpectedTcp).toBe(0);
    await bytesAgreeing(1, TSA, [hosts.s1, hosts.s2]);
  });

  it('counts the SCTP bytes of an SCTP Target Set, all of them sent on to its servers', async () => {
    const before = await settled(2, TSA_SCTP);
    await sctpTraffic(TSA_SCTP, 6);
    let last = '';
    const after = await until('the SCTP bytes read after the traffic', () => {
      const ts = targetSet(2);
      const received = ts.rxBytes! - before.rxBytes!;
      const sent = sentToServers(ts) - sentToServers(before);
      last = `${received} bytes received, ${sent} sent on: ${JSON.stringify(ts)}`;
      return received > 0 && received === sent && ts;
    }).catch((err: Error) => {
      throw new Error(`${err.message} (${last})`);
    });
    // An INIT alone is 68 bytes (IP, SCTP, the chunk); six associations sent many more.
    expect(after.rxSctpBytes! - before.rxSctpBytes!).toBeGreaterThan(6 * 68);
    expect(after.rxSctpBytes! - before.rxSctpBytes!).toBe(after.rxBytes! - before.rxBytes!);
    expect(after.unexpectedSctp).toBe(0);
    await agreeing(
      'the SCTP bytes received',
      () => metric('ipfe_tsa_rx_sctp_bytes_total', { target_set: '2', tsa: TSA_SCTP }),
      () => targetSet(2).rxSctpBytes!,
    );
  });

  it('counts SCTP to a TCP Target Set, TCP to an SCTP one, and TCP packets of no known flow as unexpected', async () => {
    // Each connect's SYN is answered with a reset by the node itself: one packet each.
    expect(await client.ask(`tally ${TSA_SCTP} 3`)).toEqual({ none: 3 });
    await until('3 unexpected TCP packets to the SCTP-only TSA', () =>
      targetSet(2).unexpectedTcp === 3 ? true : null,
    );

    // Nothing answers an INIT to a TSA whose Target Set carries no SCTP: the client sends again.
    const sctp = await startSctpClient(topology, 'client', {
      connect: [TSA],
      port: PORT.tcp,
      bind: [hosts.client],
      associations: 1,
    });
    let last = '';
    await until('unexpected SCTP packets to the TCP TSA', () => {
      const ts = targetSet(1);
      last = `${JSON.stringify(ts)}; the client: ${linesOf(sctp.child).slice(-3).join(' | ')}`;
      return ts.unexpectedSctp! > 0;
    }).catch((err: Error) => {
      throw new Error(`${err.message} (${last})`);
    });
    topology.kill(sctp.child);
    const unexpectedSctp = (await settled(1, TSA)).unexpectedSctp!;
    expect(metric('ipfe_tsa_unexpected_packets_total', { tsa: TSA, protocol: 'sctp' })).toBe(
      unexpectedSctp,
    );

    // Connections idle past Delete Age (10 s; the window in which a node that took a TSA over
    // adopts flows it has no record of is as long, and long past): their records go, and each
    // one's next packet belongs to no known flow and opens none, which the path resets — and counts.
    const held = await client.ask(`hold ${TSA} 4`);
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(4);
    expect(targetSet(1).unexpectedTcp).toBe(0);
    await new Promise((r) => setTimeout(r, 12_000));
    expect(await client.ask('alive')).toEqual({});
    await until('4 unexpected TCP packets', () => (targetSet(1).unexpectedTcp === 4 ? true : null));
    expect(metric('ipfe_tsa_unexpected_packets_total', { tsa: TSA, protocol: 'tcp' })).toBe(4);
    await client.ask('release');
  }, 90_000);

  it('stops counting packets and bytes while Accounting is off, and says so; refusals (TxReject) are still counted', async () => {
    await push(config(false));
    await until('the status says accounting is off', () => !measurementsOf().accounting);
    expect(fromA1('/metrics')).toMatch(/^ipfe_accounting\{slot="A1"\} 0$/m);
    const before = await settled(1, TSA);
    const sctpBefore = await settled(2, TSA_SCTP);
    const refusedBefore = targetSet(3).rejected!;

    const tally = await client.ask(`tally ${TSA} 50`);
    expect(tally.none).toBeUndefined();
    await sctpTraffic(TSA_SCTP, 2);
    expect(await client.ask(`tally ${TSA_REFUSING} 5`)).toEqual({ none: 5 });
    await until('the 5 refusals counted', () => targetSet(3).rejected === refusedBefore + 5);
    expect(metric('ipfe_connections_refused_total', { target_set: '3', reason: 'no-server' })).toBe(
      refusedBefore + 5,
    );
    expect(targetSet(1)).toEqual(before);
    expect(targetSet(2)).toEqual(sctpBefore);
    expect(
      topology.exec('a1', ['nft', 'list', 'chain', 'netdev', 'ipfe_a1', 'measure']).stdout,
    ).not.toContain('@rx4');

    await push(config(true));
    await until('the status says accounting is on', () => measurementsOf().accounting);
    await client.ask(`tally ${TSA} 10`);
    await until('bytes counted again', () => targetSet(1).rxBytes! > before.rxBytes!);
  });
});
