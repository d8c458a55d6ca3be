import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  configurationShape,
  type Configuration,
  type SctpRejectOption,
  type TcpRejectOption,
} from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { startHoldingReporter, startNamingService, stateDirWith } from './direct-hosts.ts';
import { arrivals, countArrivals } from './flood/counted.ts';
import { synFlood } from './flood/syn-flood.ts';
import { sctpPeerUnavailable, startSctpClient } from './sctp/sctp-peer.ts';
import { startNetnsAgent } from './kernel-agents.ts';
import {
  startKernelClient,
  startNamedServer,
  Topology,
  type KernelClient,
} from './netns-topology.ts';
import { until } from './poll.ts';
import { describeLab, labMissing } from './lab.ts';
import { withPortSlices } from '../src/testing.ts';
import type { DataPath } from '../src/data-paths.ts';

/**
 * The Options that are not about one Target Set, on the paths that render them in nftables
 * (issue 27 item 3), with real traffic: the Global Packet Rate Limit against a SYN flood at three
 * times it (packets above it dropped, held connections unharmed, 5100 and 5013 raised, 5013
 * cleared once the drops have stopped 5 s), the ICMP reject choices as the client receives
 * them, and Out of Balance judged only at the Imbalance Detection Throughput Minimum. One topology per path: a client, A1 alone, two servers.
 */
const PORT = 3868;
const LIMIT_PPS = 1000; // the lowest the Options allow
const FLOOD_PPS = 3 * LIMIT_PPS;
const FLOOD_SECONDS = 6;
const HELD = 10;

const PATHS: { path: DataPath; subnet: string; tools: string[] }[] = [
  { path: 'direct', subnet: '10.231.71', tools: ['nft', 'arping', 'gcc'] },
  { path: 'kernel', subnet: '10.231.70', tools: ['nft', 'conntrack', 'arping', 'gcc'] },
];

for (const { path, subnet, tools } of PATHS) {
  const hosts = {
    a1: `${subnet}.11`,
    s1: `${subnet}.21`,
    s2: `${subnet}.22`,
    client: `${subnet}.50`,
  };
  const TSA = `${subnet}.100`;
  /** Target Set 2's only server: an address nothing answers on, so that it can take nobody. */
  const UNSERVED_TSA = `${subnet}.101`;
  const ABSENT_SERVER = `${subnet}.29`;
  const FLOOD_SOURCE = `${subnet}.60`;
  const TOKEN = `throttle-${path}-token-0123456789abcdefghijklmn`;
  const control = `http://${hosts.a1}:8701`;
  const topology = new Topology(`ipr${path[0]}${process.pid % 10000}`, hosts);
  const dir = mkdtempSync(join(tmpdir(), `ipfe-throttle-${path}-`));
  let client: KernelClient;
  let revision = 1;

  const config = (
    tcpRejectOption: TcpRejectOption = 'tcpReset',
    balance: { weights: [number, number]; imbalanceMinPps: number } | null = null,
    sctpRejectOption: SctpRejectOption = 'drop',
  ): Configuration =>
    configurationShape.parse({
      options: {
        ipfe: { A1: { address: hosts.a1 } },
        forwardedPorts: [PORT],
        connectTimeoutS: 2,
        connectTryIntervalS: 1,
        packetRateLimitPps: balance ? 500_000 : LIMIT_PPS,
        tcpRejectOption,
        sctpRejectOption,
        ...(balance && { imbalanceThresholdPct: 1, imbalanceMinPps: balance.imbalanceMinPps }),
      },
      xsiNetworks: [{ name: 'xsi', cidr: `${subnet}.0/24` }],
      appServers: withPortSlices([
        { name: 's1', addresses: [hosts.s1] },
        { name: 's2', addresses: [hosts.s2] },
        { name: 'absent', addresses: [ABSENT_SERVER] },
      ]),
      targetSets: [
        {
          number: 1,
          family: 'ipv4',
          algorithm: 'hash',
          primary: { address: TSA, activeIpfe: 'A1' },
          servers: [
            { address: hosts.s1, weight: balance?.weights[0] ?? 100 },
            { address: hosts.s2, weight: balance?.weights[1] ?? 100 },
          ],
        },
        {
          number: 2,
          family: 'ipv4',
          algorithm: 'hash',
          // SCTP too where it is forwarded (the direct path): its INITs are refused as well.
          protocols: path === 'direct' ? 'both' : 'tcp',
          primary: { address: UNSERVED_TSA, activeIpfe: 'A1' },
          servers: [{ address: ABSENT_SERVER }],
        },
      ],
    });

  async function push(next: Configuration) {
    const file = join(dir, `revision-${++revision}.json`);
    writeFileSync(file, JSON.stringify(buildDocument(revision, next)));
    await until(
      `revision ${revision} pushed`,
      async () =>
        ((await client.ask(`push ${control} ${TOKEN} ${file}`)) as { status?: unknown }).status ===
        200,
    );
  }

  const alarms = async () => Object.keys(await client.ask(`alarms ${control} ${TOKEN}`));

  /** SYNs to the port that reached the servers (counted in each server's namespace). */
  const synsAtServers = () =>
    (['s1', 's2'] as const).reduce((sum, s) => sum + (arrivals(topology, s, 'seen').syn ?? 0), 0);

  /** ICMP destination-unreachable codes the client has received, by nft's names for them. */
  const icmpAtClient = () => arrivals(topology, 'client', 'icmpseen');

  describeLab(
    `the Options’ rate limit and rejects on the ${path} path`,
    labMissing(...tools) ?? (path === 'direct' ? sctpPeerUnavailable() : null),
    () => {
      beforeAll(async () => {
        topology.build();
        topology.exec('a1', ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
        for (const s of ['s1', 's2'] as const) {
          if (path === 'direct') {
            startHoldingReporter(topology, s, { address: hosts[s], holdTsa: TSA });
            startNamingService(topology, s, PORT, () => {});
          } else startNamedServer(topology, s, hosts[s]);
          countArrivals(topology, s, 'seen', 'prerouting', {
            syn: `tcp dport ${PORT} tcp flags & (syn | ack) == syn`,
          });
        }
        countArrivals(
          topology,
          'client',
          'icmpseen',
          'input',
          Object.fromEntries(
            ['host-unreachable', 'port-unreachable', 'admin-prohibited'].map((code) => [
              code,
              `icmp type destination-unreachable icmp code ${code}`,
            ]),
          ),
        );
        startNetnsAgent(topology, 'a1', {
          control: `${hosts.a1}:8701`,
          stateDir: stateDirWith(dir, 'a1', config()),
          token: TOKEN,
          sync: false,
          dataplane: path,
        });
        client = startKernelClient(topology);
        await until(
          'the TSA forwards to both servers',
          async () => {
            const tally = await client.ask(`tally ${TSA} 12`);
            return tally.none === undefined && Object.keys(tally).length === 2;
          },
          30_000,
        );
      }, 90_000);

      afterAll(() => {
        topology.remove();
        rmSync(dir, { recursive: true, force: true });
      });

      // Before the flood, whose conntrack entries would linger.
      it('judges Out of Balance only at the Imbalance Detection Throughput Minimum', async () => {
        // 200 new connections all to s1 (s2 weighted 0), then both weighted alike: over the last
        // minute s1 took 100 % where 50 % is expected now. The traffic was far below 10,000,000
        // packets/s: no alarm; with a minimum of 0 the same minute raises 5008 for s1, 5007 for s2.
        await push(config('tcpReset', { weights: [100, 0], imbalanceMinPps: 10_000_000 }));
        await until('s2 takes no new connection', async () => {
          const tally = await client.ask(`tally ${TSA} 10`);
          return tally.s1 === 10;
        });
        const tally = await client.ask(`tally ${TSA} 200`);
        expect(tally.s1).toBe(200);
        await push(config('tcpReset', { weights: [100, 100], imbalanceMinPps: 10_000_000 }));
        // The balance is sampled every 5 s: two samples past the push, and still nothing.
        await new Promise((r) => setTimeout(r, 11_000));
        const below = await alarms();
        expect(below.filter((a) => /^500[78] /.test(a))).toEqual([]);

        await push(config('tcpReset', { weights: [100, 100], imbalanceMinPps: 0 }));
        const raised = await until(
          '5008 for s1 and 5007 for s2',
          async () => {
            const now = await alarms();
            return now.includes(`5008 ${hosts.s1}`) && now.includes(`5007 ${hosts.s2}`)
              ? now
              : null;
          },
          20_000,
        );
        expect(raised.filter((a) => /^500[78] /.test(a)).sort()).toEqual([
          `5007 ${hosts.s2}`,
          `5008 ${hosts.s1}`,
        ]);
        await push(config());
      }, 90_000);

      it('drops what a flood sends above the limit, keeps the held connections, raises 5100 and 5013 and clears 5013 5 s after the drops', async () => {
        const held = await client.ask(`hold ${TSA} ${HELD}`);
        expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(HELD);
        expect(await alarms()).not.toContain(`5013 port ${PORT}`);
        const before = synsAtServers();

        const seen = new Set<string>();
        const flood = synFlood(topology, 'client', {
          source: FLOOD_SOURCE,
          target: TSA,
          port: PORT,
          pps: FLOOD_PPS,
          seconds: FLOOD_SECONDS,
        });
        let flooding = true;
        void flood.finally(() => (flooding = false));
        while (flooding) {
          for (const alarm of await alarms()) seen.add(alarm);
          await new Promise((r) => setTimeout(r, 200));
        }
        const sent = await flood;
        const activeAtTheEnd = await alarms();
        const forwarded = synsAtServers() - before;

        expect(sent.errors).toBe(0);
        // The limit lets through about LIMIT_PPS a second (and its burst), however much more comes.
        expect(forwarded).toBeLessThanOrEqual(1.15 * LIMIT_PPS * sent.seconds);
        expect(forwarded).toBeGreaterThan(0.5 * Math.min(sent.sent, LIMIT_PPS * sent.seconds));
        expect([...seen]).toContain(`5100 port ${PORT}`);
        expect([...seen]).toContain(`5013 port ${PORT}`);
        // Dropping until the end: 5013 stands for 5 s more.
        expect(activeAtTheEnd).toContain(`5013 port ${PORT}`);

        // The held connections were never reset: each answers again.
        const alive = await client.ask('alive');
        expect(Object.values(alive).reduce((a, b) => a + b, 0)).toBe(HELD);
        await client.ask('release');

        await until(
          '5013 and 5100 cleared',
          async () => {
            const now = await alarms();
            return !now.includes(`5013 port ${PORT}`) && !now.includes(`5100 port ${PORT}`);
          },
          20_000,
        );
      }, 60_000);

      it('answers a connection no server can take as the TCP reject option says: ICMP host unreachable, administratively prohibited, a reset, nothing', async () => {
        const connect = async () =>
          Object.keys(await client.ask(`connect ${UNSERVED_TSA} ${PORT}`))[0];
        await push(config('icmpHostUnreachable'));
        await until(
          'the client told the host is unreachable',
          async () => (await connect()) === 'EHOSTUNREACH',
          30_000,
        );
        expect(icmpAtClient()['host-unreachable']).toBeGreaterThan(0);

        await push(config('icmpAdminProhibited'));
        await until(
          'the client told it is administratively prohibited',
          async () => (await connect(), icmpAtClient()['admin-prohibited']! > 0),
          30_000,
        );

        await push(config('tcpReset'));
        await until('the client reset', async () => (await connect()) === 'ECONNREFUSED', 30_000);
        const icmp = icmpAtClient();

        await push(config('drop'));
        await until(
          'the client answered nothing',
          async () => (await connect()) === 'timeout',
          30_000,
        );
        // Neither a reset nor a drop sends any ICMP.
        expect(icmpAtClient()).toEqual(icmp);
        // Target Set 1 is untouched by Target Set 2's refusals.
        expect((await client.ask(`tally ${TSA} 4`)).none).toBeUndefined();
      }, 150_000);
      if (path === 'direct')
        it('answers an SCTP INIT no server can take as the SCTP reject option says: ICMP port unreachable, or nothing', async () => {
          const portUnreachable = () => icmpAtClient()['port-unreachable'] ?? 0;
          const tryAssociation = () =>
            startSctpClient(topology, 'client', {
              connect: [UNSERVED_TSA],
              port: PORT,
              bind: [hosts.client],
              associations: 1,
              timeoutMs: 3000,
            });
          await push(config('tcpReset', null, 'icmpPortUnreachable'));
          const before = portUnreachable();
          const refused = await tryAssociation();
          await until(
            'the client told the port is unreachable',
            () => portUnreachable() > before,
            20_000,
          );
          topology.kill(refused.child);

          await push(config('drop', null, 'drop'));
          // The push is in once a TCP connection is dropped (TCP reject Drop too) rather than reset.
          await until(
            'the new options in',
            async () => {
              const outcome = Object.keys(await client.ask(`connect ${UNSERVED_TSA} ${PORT}`))[0];
              return outcome === 'timeout';
            },
            30_000,
          );
          const atDrop = portUnreachable();
          const dropped = await tryAssociation();
          await new Promise((r) => setTimeout(r, 3000)); // INITs are sent again meanwhile
          topology.kill(dropped.child);
          expect(portUnreachable()).toBe(atDrop);
          await push(config());
        }, 90_000);
    },
  );
}
