import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configurationShape, type Configuration } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { a1Measurements } from './a1-measurements.ts';
import { startNetnsAgent } from './kernel-agents.ts';
import { startKernelClient, startNamedServer, Topology } from './netns-topology.ts';
import { until } from './poll.ts';
import { describeLab, labMissing } from './lab.ts';
import { stateDirWith } from './direct-hosts.ts';
import { withPortSlices } from '../src/testing.ts';

/**
 * The source product's measurements on the kernel data path (issue 27 item 4), with real traffic:
 * a client, the IPFE A1 and two servers, each in a network namespace. Target Set 1 carries both
 * protocols (the path forwards its TCP); Target Set 2 only SCTP, so TCP to it is unexpected; Target Set 3's one server has no host, so
 * that every connection to it is refused (TxReject).
 */
const missing = labMissing('nft', 'conntrack', 'arping');
const available = missing === null;
const SUBNET = '10.231.80';
const hosts = {
  a1: `${SUBNET}.11`,
  s1: `${SUBNET}.21`,
  s2: `${SUBNET}.22`,
  client: `${SUBNET}.50`,
};
const TSA = `${SUBNET}.100`;
const TSA_SCTP = `${SUBNET}.101`;
const TSA_REFUSING = `${SUBNET}.102`;
/** Target Set 3's server: an address no host answers on, so never up. */
const ABSENT_SERVER = `${SUBNET}.29`;
const TOKEN = 'kernel-measure-token-0123456789abcdefghijk';
const dir = mkdtempSync(join(tmpdir(), 'ipfe-kernel-measure-'));
const topology = new Topology(`imk${process.pid % 10000}`, hosts);
let client: ReturnType<typeof startKernelClient>;
let revision = 1;

function config(accounting = true): Configuration {
  return configurationShape.parse({
    options: { ipfe: { A1: { address: hosts.a1 } }, connectTimeoutS: 2, accounting },
    xsiNetworks: [{ name: 'xsi', cidr: `${SUBNET}.0/24` }],
    appServers: withPortSlices([
      ...(['s1', 's2'] as const).map((s) => ({ name: s, addresses: [hosts[s]] })),
      { name: 'absent', addresses: [ABSENT_SERVER] },
    ]),
    targetSets: [
      {
        number: 1,
        family: 'ipv4',
        algorithm: 'hash',
        primary: { address: TSA, activeIpfe: 'A1' },
        servers: [{ address: hosts.s1 }, { address: hosts.s2 }],
      },
      {
        number: 2,
        family: 'ipv4',
        algorithm: 'hash',
        protocols: 'sctp',
        primary: { address: TSA_SCTP, activeIpfe: 'A1' },
        servers: [{ address: hosts.s1 }, { address: hosts.s2 }],
      },
      {
        number: 3,
        family: 'ipv4',
        algorithm: 'hash',
        primary: { address: TSA_REFUSING, activeIpfe: 'A1' },
        servers: [{ address: ABSENT_SERVER }],
      },
    ],
  });
}

const { fromA1, measurementsOf, targetSet, sentToServers, metric, settled, bytesAgreeing } =
  a1Measurements(topology, {
    address: hosts.a1,
    token: TOKEN,
    family: 'inet',
  });

async function push(next: Configuration) {
  const file = join(dir, `revision-${++revision}.json`);
  writeFileSync(file, JSON.stringify(buildDocument(revision, next)));
  await until(
    `revision ${revision} pushed`,
    async () => (await client.ask(`push http://${hosts.a1}:8701 ${TOKEN} ${file}`)).status === 200,
  );
}

describeLab('the kernel data path’s measurements', missing, () => {
  beforeAll(async () => {
    topology.build();
    topology.exec('a1', ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    for (const s of ['s1', 's2'] as const) startNamedServer(topology, s, hosts[s]);
    startNetnsAgent(topology, 'a1', {
      control: `${hosts.a1}:8701`,
      stateDir: stateDirWith(dir, 'a1', config()),
      token: TOKEN,
      sync: false,
    });
    client = startKernelClient(topology);
    await until('the TSA forwards', async () => {
      const tally = await client.ask(`tally ${TSA} 2`);
      return tally.none === undefined;
    });
  }, 60_000);

  afterAll(() => {
    if (available) topology.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts every byte the clients send to the TSA and the bytes sent on to each server, alike in the status and /metrics', async () => {
    const before = await settled(1, TSA);
    const tally = await client.ask(`tally ${TSA} 200`);
    expect(tally.none).toBeUndefined();
    // Every packet of these connections is forwarded to a server: once the counters are read
    // after the last one, what the servers were sent adds up to what the TSA received, to the byte.
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
    // At least a SYN, an ACK and a FIN with its ACK (≥ 52 bytes each, IP) per connection.
    expect(after.rxBytes! - before.rxBytes!).toBeGreaterThanOrEqual(200 * 3 * 52);
    for (const s of ['s1', 's2'] as const) {
      const sent = (ts: typeof after) => ts.servers.find((x) => x.address === hosts[s])!.txBytes!;
      expect(sent(after) > sent(before), `bytes sent to ${s}`).toBe((tally[s] ?? 0) > 0);
    }
    expect(after.rxSctpBytes).toBe(0);
    expect(after.unexpectedTcp).toBe(0);
    await bytesAgreeing(1, TSA, [hosts.s1, hosts.s2]);
    expect(fromA1('/metrics')).toMatch(/^ipfe_accounting\{slot="A1"\} 1$/m);
  });

  it('counts TCP to a Target Set that carries only SCTP, and packets of connections conntrack no longer knows, as unexpected', async () => {
    const tally = await client.ask(`tally ${TSA_SCTP} 3`);
    expect(tally).toEqual({ none: 3 }); // refused: the node's own stack resets each SYN
    await until('3 unexpected TCP packets to the SCTP-only TSA', () => {
      return targetSet(2).unexpectedTcp === 3;
    });

    const held = await client.ask(`hold ${TSA} 4`);
    expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(4);
    expect(targetSet(1).unexpectedTcp).toBe(0);
    // Their conntrack entries go (as when idle past Delete Age): each one's next packet is new
    // without a SYN, which the path resets — and counts.
    topology.exec('a1', ['conntrack', '-D', '-p', 'tcp', '--orig-dst', TSA]);
    expect(await client.ask('alive')).toEqual({});
    await until('4 unexpected TCP packets', () => targetSet(1).unexpectedTcp === 4);
    expect(metric('ipfe_tsa_unexpected_packets_total', { tsa: TSA, protocol: 'tcp' })).toBe(4);
    // The kernel path forwards no SCTP: it has no association for an SCTP packet to belong to.
    expect(metric('ipfe_tsa_unexpected_packets_total', { tsa: TSA, protocol: 'sctp' })).toBe(0);
    await client.ask('release');
  });

  it('stops counting packets and bytes while Accounting is off, and says so; refusals (TxReject) are still counted', async () => {
    await push(config(false));
    await until('the status says accounting is off', () => !measurementsOf().accounting);
    expect(fromA1('/metrics')).toMatch(/^ipfe_accounting\{slot="A1"\} 0$/m);
    const before = await settled(1, TSA);
    const refusedBefore = targetSet(3).rejected!;

    const tally = await client.ask(`tally ${TSA} 50`);
    expect(tally.none).toBeUndefined();
    expect(await client.ask(`tally ${TSA_REFUSING} 5`)).toEqual({ none: 5 });
    await until('the 5 refusals counted', () => targetSet(3).rejected === refusedBefore + 5);
    expect(metric('ipfe_connections_refused_total', { target_set: '3', reason: 'no-server' })).toBe(
      refusedBefore + 5,
    );
    expect(targetSet(1)).toEqual(before);
    expect(metric('ipfe_tsa_rx_bytes_total', { target_set: '1', tsa: TSA })).toBe(before.rxBytes);
    expect(
      topology.exec('a1', ['nft', 'list', 'chain', 'inet', 'ipfe_a1', 'measure_in']).stdout,
    ).not.toContain('@rx4');

    await push(config(true));
    await until('the status says accounting is on', () => measurementsOf().accounting);
    await client.ask(`tally ${TSA} 10`);
    await until('bytes counted again', () => targetSet(1).rxBytes! > before.rxBytes!);
  });
});
