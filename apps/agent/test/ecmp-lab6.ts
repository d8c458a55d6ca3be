import { spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configurationShape, formatHostPort, type Configuration } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { frrPathspace } from '../src/bgp.ts';
import { countedInCommand, startHoldingReporter, startNamingService } from './direct-hosts.ts';
import { IPFES, SERVERS, type IpfeName } from './ecmp-lab.ts';
import { startKernelAgent } from './kernel-agents.ts';
import { ip, startKernelClient, Topology, until, type KernelClient } from './netns-topology.ts';

const FRR = '/usr/lib/frr';
type ServerName = (typeof SERVERS)[number];
const TOKEN = 'ecmp6-token-0123456789abcdefghijklmnopqrstu';
const ROUTER_ASN = 65000;
const IPFE_ASN = 65001;

/**
 * The lab of ecmp-lab.ts for an IPv6 Target Set: the router, A1, A2, B1 and the servers on one
 * /64 with IPv6 addresses only (no IPv4 anywhere but loopback), the client behind the router on a
 * /64 of its own. The router peers with the IPFEs over IPv6 (address family ipv6 unicast, ECMP
 * over up to 4 paths, L4 hash) with BFD, and installs the TSA /128 through their global addresses.
 */
export class EcmpLab6 {
  readonly hosts: Record<'router' | IpfeName | ServerName, string>;
  readonly tsa: string;
  readonly topology: Topology;
  readonly routerSpace: string;
  readonly agents: Partial<Record<IpfeName, ChildProcess>> = {};
  readonly reporters: Partial<Record<ServerName, ChildProcess>> = {};
  readonly #clientNs: string;
  readonly #clientNet: string;
  readonly #subnet: string;
  readonly #dir = mkdtempSync(join(tmpdir(), 'ipfe-ecmp6-'));
  #client: KernelClient | null = null;
  #revision = 0;
  #latest: string | null = null;

  /** `subnet` and `clientNet`: the first 48 bits of the XSI and client /64s, e.g. `fd00:231:50`. */
  constructor(prefix: string, subnet: string, clientNet: string) {
    this.hosts = {
      router: `${subnet}::1`,
      a1: `${subnet}::11`,
      a2: `${subnet}::12`,
      b1: `${subnet}::13`,
      s1: `${subnet}::21`,
      s2: `${subnet}::22`,
    };
    this.tsa = `${subnet}::100`;
    this.#subnet = subnet;
    this.#clientNet = clientNet;
    this.topology = new Topology(prefix, this.hosts);
    this.#clientNs = this.topology.ns('client');
    this.routerSpace = `${prefix}-rt`;
  }

  get client(): KernelClient {
    if (!this.#client) throw new Error('EcmpLab6: build() first');
    return this.#client;
  }

  build() {
    this.topology.build();
    const router = this.topology.ns('router');
    const [clientEnd, routerEnd] = [`${this.topology.prefix}c`, `${this.topology.prefix}r`];
    ip('netns', 'add', this.#clientNs);
    ip('link', 'add', clientEnd, 'type', 'veth', 'peer', 'name', routerEnd);
    ip('link', 'set', clientEnd, 'netns', this.#clientNs);
    ip('link', 'set', routerEnd, 'netns', router);
    ip('-n', this.#clientNs, 'link', 'set', clientEnd, 'name', 'eth0');
    ip('-n', router, 'link', 'set', routerEnd, 'name', 'eth1');
    ip(
      '-n',
      this.#clientNs,
      '-6',
      'addr',
      'add',
      `${this.#clientNet}::50/64`,
      'dev',
      'eth0',
      'nodad',
    );
    ip('-n', router, '-6', 'addr', 'add', `${this.#clientNet}::1/64`, 'dev', 'eth1', 'nodad');
    for (const [ns, dev] of [
      [this.#clientNs, 'eth0'],
      [this.#clientNs, 'lo'],
      [router, 'eth1'],
    ] as const)
      ip('-n', ns, 'link', 'set', dev, 'up');
    ip('-n', this.#clientNs, '-6', 'route', 'add', 'default', 'via', `${this.#clientNet}::1`);
    for (const h of [...SERVERS, ...IPFES])
      ip(
        '-n',
        this.topology.ns(h),
        '-6',
        'route',
        'add',
        `${this.#clientNet}::/64`,
        'via',
        this.hosts.router,
      );
    for (const sysctl of ['net.ipv6.conf.all.forwarding=1', 'net.ipv6.fib_multipath_hash_policy=1'])
      this.topology.exec('router', ['sysctl', '-qw', sysctl]);
    this.#startRouterFrr();
    for (const slot of IPFES) this.#countNewFlows(slot);
    for (const s of SERVERS) {
      this.reporters[s] = startHoldingReporter(this.topology, s, {
        address: this.hosts[s],
        holdTsa: this.tsa,
      });
      startNamingService(this.topology, s, 3868, () => undefined);
    }
    this.#client = startKernelClient(this.topology);
  }

  remove() {
    for (const slot of IPFES)
      if (this.agents[slot]) this.topology.kill(this.agents[slot]!, 'SIGTERM');
    spawnSync('sleep', ['2']);
    this.topology.remove();
    spawnSync('ip', ['netns', 'del', this.#clientNs]);
    for (const space of [this.routerSpace, ...IPFES.map((s) => frrPathspace(s, this.stateDir(s)))])
      rmSync(`/var/run/frr/${space}`, { recursive: true, force: true });
    rmSync(this.#dir, { recursive: true, force: true });
  }

  stateDir(slot: IpfeName) {
    return join(this.#dir, slot);
  }

  /** One IPv6 Hash Target Set on s1 and s2, served active-active by `group`. */
  config(group: readonly IpfeName[]): Configuration {
    return configurationShape.parse({
      options: {
        ipfe: {
          A1: { address: this.hosts.a1 },
          A2: { address: this.hosts.a2 },
          B1: { address: this.hosts.b1 },
        },
        forwardedPorts: [3868],
        mateIntervalMs: 100,
        mateTimeoutMs: 600,
        connectTimeoutS: 2,
        bgp: { asn: IPFE_ASN, peers: [{ address: this.hosts.router, asn: ROUTER_ASN }] },
      },
      xsiNetworks: [{ name: 'xsi', cidr: `${this.#subnet}::/64` }],
      appServers: SERVERS.map((s, i) => ({
        name: s,
        addresses: [this.hosts[s]],
        initiatorPortRange: { start: 16384 + 512 * i, end: 16895 + 512 * i },
      })),
      targetSets: [
        {
          number: 1,
          family: 'ipv6',
          algorithm: 'hash',
          serving: 'activeActive',
          activeActiveIpfes: group.map((g) => g.toUpperCase()),
          primary: { address: this.tsa, activeIpfe: 'A1' },
          servers: SERVERS.map((s) => ({ address: this.hosts[s], weight: 100 })),
        },
      ],
    });
  }

  startAgent(slot: IpfeName) {
    if (this.#latest) {
      mkdirSync(this.stateDir(slot), { recursive: true });
      writeFileSync(join(this.stateDir(slot), 'config.json'), this.#latest);
    }
    this.agents[slot] = startKernelAgent(this.topology, slot, {
      control: formatHostPort(this.hosts[slot], 8701),
      stateDir: this.stateDir(slot),
      token: TOKEN,
      sync: false,
      dataplane: 'direct',
    });
  }

  running(slot: IpfeName) {
    const agent = this.agents[slot];
    return agent !== undefined && agent.exitCode === null && agent.signalCode === null;
  }

  async push(next: Configuration) {
    const file = join(this.#dir, `revision-${++this.#revision}.json`);
    this.#latest = JSON.stringify(buildDocument(this.#revision, next));
    writeFileSync(file, this.#latest);
    for (const slot of IPFES.filter((s) => this.running(s)))
      await until(
        `revision ${this.#revision} pushed to ${slot}`,
        async () =>
          (
            await this.client.ask(
              `push http://${formatHostPort(this.hosts[slot], 8701)} ${TOKEN} ${file}`,
            )
          ).status === 200,
      );
  }

  /** The next hops the router's kernel has for the TSA /128. */
  nextHops(): string[] {
    const { stdout } = this.topology.exec('router', [
      'ip',
      '-6',
      '-j',
      'route',
      'show',
      `${this.tsa}/128`,
    ]);
    const routes = JSON.parse(stdout || '[]') as {
      gateway?: string;
      nexthops?: { gateway: string }[];
    }[];
    return routes
      .flatMap((r) =>
        r.nexthops ? r.nexthops.map((n) => n.gateway) : r.gateway ? [r.gateway] : [],
      )
      .sort();
  }

  async untilRoutedThrough(slots: readonly IpfeName[], timeoutMs = 30_000) {
    const wanted = slots.map((s) => this.hosts[s]).sort();
    await until(
      `the router routes the TSA through ${slots.join(', ') || 'no IPFE'}`,
      () => JSON.stringify(this.nextHops()) === JSON.stringify(wanted),
      timeoutMs,
    );
  }

  /** New flows (SYNs towards the TSA) each IPFE has received so far. */
  newFlows(): Record<IpfeName, number> {
    return Object.fromEntries(
      IPFES.map((slot) => {
        const listing = this.topology.exec(slot, [
          'nft',
          '-j',
          'list',
          'counter',
          'netdev',
          'ecmplab',
          'syn',
        ]);
        const items = (
          JSON.parse(listing.stdout || '{"nftables":[]}') as {
            nftables: { counter?: { packets: number } }[];
          }
        ).nftables;
        return [slot, items.find((i) => i.counter)?.counter?.packets ?? 0];
      }),
    ) as Record<IpfeName, number>;
  }

  /** The command listing what an IPFE's direct path counted per IPv6 TSA (its set `in6`). */
  countedInCommand(slot: IpfeName) {
    return [...countedInCommand(slot).slice(0, -1), 'in6'];
  }

  agentGet(slot: IpfeName, path: string): string {
    const url = `http://${formatHostPort(this.hosts[slot], 8701)}${path}`;
    const script = `fetch('${url}', { headers: { authorization: 'Bearer ${TOKEN}' } }).then((r) => r.text()).then((t) => process.stdout.write(t))`;
    return this.topology.exec(slot, [process.execPath, '-e', script]).stdout;
  }

  #countNewFlows(slot: IpfeName) {
    const file = join(this.#dir, `${slot}.nft`);
    writeFileSync(
      file,
      [
        'table netdev ecmplab {',
        '  counter syn {}',
        '  chain in {',
        '    type filter hook ingress device "eth0" priority -500;',
        `    ip6 daddr ${this.tsa} tcp flags & (syn | ack) == syn counter name "syn"`,
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const result = this.topology.exec(slot, ['nft', '-f', file]);
    if (result.status !== 0) throw new Error(`nft (${slot}): ${result.stderr}`);
  }

  /**
   * The router's FRR: the IPFEs as eBGP neighbours over IPv6 with BFD. Each announces its global
   * and link-local addresses as next hops; preferring the global one makes the kernel route name
   * the IPFE by its configured address.
   */
  #startRouterFrr() {
    const run = `/var/run/frr/${this.routerSpace}`;
    mkdirSync(run, { recursive: true });
    const id = (flag: string) =>
      Number(spawnSync('id', [flag, 'frr'], { encoding: 'utf8' }).stdout);
    chownSync(run, id('-u'), id('-g'));
    const head = 'frr defaults datacenter\nhostname router\n!\n';
    const configs = {
      zebra: head,
      bfdd: `${head}bfd\n profile ipfe\n  transmit-interval 100\n  receive-interval 100\n  detect-multiplier 3\n exit\nexit\n`,
      bgpd: [
        head,
        'route-map IPFES-IN permit 10',
        ' set ipv6 next-hop prefer-global',
        'exit',
        '!',
        `router bgp ${ROUTER_ASN}`,
        // No IPv4 address here to take a router ID from.
        ' bgp router-id 10.255.255.1',
        ' no bgp default ipv4-unicast',
        ' no bgp ebgp-requires-policy',
        ' bgp bestpath as-path multipath-relax',
        ...IPFES.flatMap((i) => [
          ` neighbor ${this.hosts[i]} remote-as ${IPFE_ASN}`,
          ` neighbor ${this.hosts[i]} bfd profile ipfe`,
          ` neighbor ${this.hosts[i]} timers 3 9`,
          ` neighbor ${this.hosts[i]} timers connect 1`,
        ]),
        ' address-family ipv6 unicast',
        '  maximum-paths 4',
        ...IPFES.flatMap((i) => [
          `  neighbor ${this.hosts[i]} activate`,
          `  neighbor ${this.hosts[i]} route-map IPFES-IN in`,
        ]),
        ' exit-address-family',
        'exit',
        '',
      ].join('\n'),
    };
    for (const daemon of ['zebra', 'bfdd', 'bgpd'] as const) {
      writeFileSync(join(run, `${daemon}.conf`), configs[daemon]);
      this.topology.run('router', [
        join(FRR, daemon),
        '-N',
        this.routerSpace,
        '-f',
        join(run, `${daemon}.conf`),
        '-i',
        join(run, `${daemon}.pid`),
        '--log',
        `file:${join(run, `${daemon}.log`)}`,
      ]);
      spawnSync('sleep', ['0.3']);
    }
  }
}
