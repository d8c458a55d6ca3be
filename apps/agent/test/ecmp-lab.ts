import { spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BFD_INTERVAL_MS,
  BFD_MULTIPLIER,
  configurationShape,
  formatHostPort,
  type Configuration,
} from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { frrPathspace } from '../src/bgp.ts';
import {
  countedInCommand,
  packetsTowards,
  startHoldingReporter,
  startNamingService,
} from './direct-hosts.ts';
import { startNetnsAgent } from './kernel-agents.ts';
import { ip, startKernelClient, Topology, type KernelClient } from './netns-topology.ts';
import { until } from './poll.ts';
import { bfdProfile, frrAvailable, FRR_HEAD, startRouterFrr } from './router-frr.ts';
import { labMissing } from './lab.ts';
import { withPortSlices } from '../src/testing.ts';

export const IPFES = ['a1', 'a2', 'b1'] as const;
export type IpfeName = (typeof IPFES)[number];
export const SERVERS = ['s1', 's2'] as const;
type ServerName = (typeof SERVERS)[number];
const TOKEN = 'ecmp-token-0123456789abcdefghijklmnopqrstuv';
const ROUTER_ASN = 65000;
const IPFE_ASN = 65001;

/** What keeps this machine from running the lab (namespaces, nftables, arping, FRR's daemons), or null. */
export const ecmpLabMissing =
  labMissing('nft', 'arping') ?? (frrAvailable ? null : 'needs FRR (apt-get install frr)');

/**
 * Active-active over BGP + ECMP (issue 18) on a real topology, for the tests and the `ecmp`
 * benchmark: an upstream router running FRR with ECMP multipath (L4 hash) and BFD, the IPFEs A1,
 * A2 and B1 with their agents (direct path) and their own FRR, two servers holding the TSA, all
 * on one XSI bridge; and a client behind the router on a link of its own. The router reaches the
 * TSA only through the IPFEs' announcements. Each IPFE counts the new flows (SYNs) it receives.
 * For an IPv6 lab (`family` 6) every address is IPv6 (no IPv4 but loopback): the router peers
 * with the IPFEs over IPv6 and installs the TSA /128 through their global addresses.
 */
export class EcmpLab {
  readonly hosts: Record<'router' | IpfeName | ServerName, string>;
  readonly tsa: string;
  readonly topology: Topology;
  readonly routerSpace: string;
  readonly agents: Partial<Record<IpfeName, ChildProcess>> = {};
  readonly reporters: Partial<Record<ServerName, ChildProcess>> = {};
  readonly #clientNs: string;
  readonly #clientNet: string;
  readonly #subnet: string;
  readonly #v6: boolean;
  readonly #dir = mkdtempSync(join(tmpdir(), 'ipfe-ecmp-'));
  #client: KernelClient | null = null;
  #revision = 0;
  /** The latest document pushed: an agent started later starts with it, as from its state folder. */
  #latest: string | null = null;

  /**
   * `subnet` and `clientNet`: the XSI and client networks, the first three octets of a /24
   * (`10.231.30`) or the first 48 bits of a /64 (`fd00:231:50`) for `family` 6.
   */
  constructor(prefix: string, subnet: string, clientNet: string, family: 4 | 6 = 4) {
    this.#v6 = family === 6;
    this.#subnet = subnet;
    this.#clientNet = clientNet;
    const at = (host: number) => this.#at(subnet, host);
    this.hosts = { router: at(1), a1: at(11), a2: at(12), b1: at(13), s1: at(21), s2: at(22) };
    this.tsa = at(100);
    this.topology = new Topology(prefix, this.hosts);
    this.#clientNs = this.topology.ns('client');
    this.routerSpace = `${prefix}-rt`;
  }

  get client(): KernelClient {
    if (!this.#client) throw new Error('EcmpLab: build() first');
    return this.#client;
  }

  /** The namespaces, the router's FRR, the servers and the client; no IPFE runs yet. */
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
    const family = this.#v6 ? '-6' : '-4';
    // IPv6 addresses usable at once (no duplicate address detection), as Topology's hosts'.
    const addr = (ns: string, host: number, dev: string) =>
      ip(
        '-n',
        ns,
        family,
        'addr',
        'add',
        `${this.#at(this.#clientNet, host)}/${this.#v6 ? 64 : 24}`,
        'dev',
        dev,
        ...(this.#v6 ? ['nodad'] : []),
      );
    addr(this.#clientNs, 50, 'eth0');
    addr(router, 1, 'eth1');
    for (const [ns, dev] of [
      [this.#clientNs, 'eth0'],
      [this.#clientNs, 'lo'],
      [router, 'eth1'],
    ] as const)
      ip('-n', ns, 'link', 'set', dev, 'up');
    ip(
      '-n',
      this.#clientNs,
      family,
      'route',
      'add',
      'default',
      'via',
      this.#at(this.#clientNet, 1),
    );
    // Servers answer the client directly, through the router; the IPFEs reach the client too.
    for (const h of [...SERVERS, ...IPFES])
      ip(
        '-n',
        this.topology.ns(h),
        family,
        'route',
        'add',
        this.#network(this.#clientNet),
        'via',
        this.hosts.router,
      );
    const sysctls = this.#v6
      ? ['net.ipv6.conf.all.forwarding=1', 'net.ipv6.fib_multipath_hash_policy=1']
      : ['net.ipv4.ip_forward=1', 'net.ipv4.fib_multipath_hash_policy=1'];
    for (const sysctl of sysctls) this.topology.exec('router', ['sysctl', '-qw', sysctl]);
    this.#startRouterFrr();
    for (const slot of IPFES) this.#countNewFlows(slot);
    for (const s of SERVERS) {
      this.startServer(s);
      startNamingService(this.topology, s, 3868, () => undefined);
    }
    // The client driver runs in the topology's `client` namespace: the one made above.
    this.#client = startKernelClient(this.topology);
  }

  remove() {
    for (const slot of IPFES)
      if (this.agents[slot]) this.topology.kill(this.agents[slot]!, 'SIGTERM');
    spawnSync('sleep', ['2']);
    this.topology.remove();
    spawnSync('ip', ['netns', 'del', this.#clientNs]);
    // The IPFEs' FRR folders too (an agent killed outright leaves its own).
    for (const space of [this.routerSpace, ...IPFES.map((s) => frrPathspace(s, this.stateDir(s)))])
      rmSync(`/var/run/frr/${space}`, { recursive: true, force: true });
    rmSync(this.#dir, { recursive: true, force: true });
  }

  stateDir(slot: IpfeName) {
    return join(this.#dir, slot);
  }

  /** One Hash Target Set (of the lab's family) on s1 and s2, served active-active by `group`. */
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
      xsiNetworks: [{ name: 'xsi', cidr: this.#network(this.#subnet) }],
      appServers: withPortSlices(SERVERS.map((s) => ({ name: s, addresses: [this.hosts[s]] }))),
      targetSets: [
        {
          number: 1,
          family: this.#v6 ? 'ipv6' : 'ipv4',
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
    this.agents[slot] = startNetnsAgent(this.topology, slot, {
      control: formatHostPort(this.hosts[slot], 8701),
      stateDir: this.stateDir(slot),
      token: TOKEN,
      sync: false,
      dataplane: 'direct',
    });
    // AGENT_LOG_LEVEL=info keeps each agent's log in /tmp/ipfe-ecmp-<slot>.log, for a failure.
    if (process.env.AGENT_LOG_LEVEL) {
      const log = createWriteStream(join(tmpdir(), `ipfe-ecmp-${slot}.log`), { flags: 'a' });
      this.agents[slot]!.stdout!.pipe(log);
    }
  }

  running(slot: IpfeName) {
    const agent = this.agents[slot];
    return agent !== undefined && agent.exitCode === null && agent.signalCode === null;
  }

  /** Pushes the next revision of `next` to every running agent. */
  async push(next: Configuration) {
    const file = join(this.#dir, `revision-${++this.#revision}.json`);
    this.#latest = JSON.stringify(buildDocument(this.#revision, next));
    writeFileSync(file, this.#latest);
    for (const slot of IPFES.filter((s) => this.running(s)))
      await until(
        `revision ${this.#revision} pushed to ${slot}`,
        async () =>
          (await this.client.ask(`push ${this.#controlUrl(slot)} ${TOKEN} ${file}`)).status === 200,
      );
  }

  /** The next hops the router's kernel has for the TSA (the IPFEs it sends its flows to). */
  nextHops(): string[] {
    const { stdout } = this.topology.exec('router', [
      'ip',
      this.#v6 ? '-6' : '-4',
      '-j',
      'route',
      'show',
      `${this.tsa}/${this.#v6 ? 128 : 32}`,
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

  /** Waits until the router sends the TSA's flows to exactly `slots`. */
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
    return this.counters('ecmplab', 'syn');
  }

  /** The packets each IPFE's named nftables counter `name` (of netdev table `table`) counted. */
  counters(table: string, name: string): Record<IpfeName, number> {
    return Object.fromEntries(
      IPFES.map((slot) => {
        const listing = this.topology.exec(slot, [
          'nft',
          '-j',
          'list',
          'counter',
          'netdev',
          table,
          name,
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

  /** Packets of held or new connections an IPFE's direct path forwarded towards the TSA. */
  carried(slot: IpfeName): number {
    const command = [...countedInCommand(slot).slice(0, -1), this.#v6 ? 'in6' : 'in4'];
    return packetsTowards(this.topology.exec(slot, command).stdout, this.tsa);
  }

  /** `count` new connections: which server answered each, and how many reached each IPFE. */
  async newConnections(count: number) {
    const before = this.newFlows();
    const tally = await this.client.ask(`tally ${this.tsa} ${count}`);
    const after = this.newFlows();
    const perIpfe = Object.fromEntries(IPFES.map((s) => [s, after[s] - before[s]]));
    return { tally, perIpfe: perIpfe as Record<IpfeName, number> };
  }

  /** Waits until the agent of `slot` reads its session and BFD as up and announces the TSA. */
  async untilBgpUp(slot: IpfeName) {
    const wanted = JSON.stringify({
      sessions: [{ peer: this.hosts.router, state: 'established', bfd: 'up' }],
      announced: [`${this.tsa}/${this.#v6 ? 128 : 32}`],
    });
    await until(`${slot.toUpperCase()} reads its session and BFD as up`, () => {
      const status = JSON.parse(this.agentGet(slot, '/v1/status') || '{}') as { bgp?: unknown };
      return JSON.stringify(status.bgp) === wanted;
    });
  }

  /** GET `path` of an agent's control API, from its own namespace. */
  agentGet(slot: IpfeName, path: string): string {
    const script = `fetch('${this.#controlUrl(slot)}${path}', { headers: { authorization: 'Bearer ${TOKEN}' } }).then((r) => r.text()).then((t) => process.stdout.write(t))`;
    return this.topology.exec(slot, [process.execPath, '-e', script]).stdout;
  }

  startServer(s: ServerName) {
    this.reporters[s] = startHoldingReporter(this.topology, s, {
      address: this.hosts[s],
      holdTsa: this.tsa,
    });
  }

  /** Drops (or lets through again) the servers' heartbeats to one IPFE: for it alone they go offline. */
  cutHeartbeats(slot: IpfeName, cut: boolean) {
    const servers = SERVERS.map((s) => this.hosts[s]).join(', ');
    this.nft(
      slot,
      cut
        ? [
            'table netdev ecmpcut {',
            '  chain in {',
            '    type filter hook ingress device "eth0" priority -400;',
            `    ${this.#v6 ? 'ip6' : 'ip'} saddr { ${servers} } tcp sport 9675 drop`,
            '  }',
            '}',
          ]
        : ['delete table netdev ecmpcut'],
    );
  }

  /** A named counter of the SYNs reaching the IPFE for the TSA, in a table of the lab's own. */
  #countNewFlows(slot: IpfeName) {
    this.nft(slot, [
      'table netdev ecmplab {',
      '  counter syn {}',
      '  chain in {',
      '    type filter hook ingress device "eth0" priority -500;',
      `    ${this.#v6 ? 'ip6' : 'ip'} daddr ${this.tsa} tcp flags & (syn | ack) == syn counter name "syn"`,
      '  }',
      '}',
    ]);
  }

  #at(network: string, host: number): string {
    return this.#v6 ? `${network}::${host}` : `${network}.${host}`;
  }

  #network(network: string): string {
    return this.#v6 ? `${network}::/64` : `${network}.0/24`;
  }

  #controlUrl(slot: IpfeName): string {
    return `http://${formatHostPort(this.hosts[slot], 8701)}`;
  }

  /** Loads an nftables script into an IPFE's namespace (tables of a test's own). */
  nft(slot: IpfeName, script: string[]) {
    const file = join(this.#dir, `${slot}.nft`);
    writeFileSync(file, `${script.join('\n')}\n`);
    const result = this.topology.exec(slot, ['nft', '-f', file]);
    if (result.status !== 0) throw new Error(`nft (${slot}): ${result.stderr}`);
  }

  /**
   * The upstream router's FRR: the IPFEs as eBGP neighbours with BFD, up to 4 equal paths. Over
   * IPv6 each IPFE announces its global and link-local addresses as next hops; preferring the
   * global one makes the kernel route name the IPFE by its configured address.
   */
  #startRouterFrr() {
    const family = this.#v6 ? 'ipv6' : 'ipv4';
    startRouterFrr(this.topology, 'router', this.routerSpace, {
      // The IPFEs' default timers (Options › BGP), which the router must match (docs/deploy.md).
      bfdd: bfdProfile(BFD_INTERVAL_MS.default, BFD_MULTIPLIER.default),
      bgpd: [
        FRR_HEAD,
        ...(this.#v6
          ? ['route-map IPFES-IN permit 10', ' set ipv6 next-hop prefer-global', 'exit', '!']
          : []),
        `router bgp ${ROUTER_ASN}`,
        // An IPv6-only router has no IPv4 address to take its ID from.
        ` bgp router-id ${this.#v6 ? '10.255.255.1' : this.hosts.router}`,
        ...(this.#v6 ? [' no bgp default ipv4-unicast'] : []),
        ' no bgp ebgp-requires-policy',
        ' bgp bestpath as-path multipath-relax',
        ...IPFES.flatMap((i) => [
          ` neighbor ${this.hosts[i]} remote-as ${IPFE_ASN}`,
          ` neighbor ${this.hosts[i]} bfd profile ipfe`,
          ` neighbor ${this.hosts[i]} timers 3 9`,
          ` neighbor ${this.hosts[i]} timers connect 1`,
        ]),
        ` address-family ${family} unicast`,
        '  maximum-paths 4',
        ...(this.#v6
          ? IPFES.flatMap((i) => [
              `  neighbor ${this.hosts[i]} activate`,
              `  neighbor ${this.hosts[i]} route-map IPFES-IN in`,
            ])
          : []),
        ' exit-address-family',
        'exit',
        '',
      ].join('\n'),
    });
  }
}
