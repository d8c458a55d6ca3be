import { createHash } from 'node:crypto';
import net from 'node:net';
import type { AgentBgpStatus, Bgp } from '@ipfe/schema';

/** A TSA's prefix as announced: a host route. */
export function prefixOf(tsa: string): string {
  return net.isIPv6(tsa) ? `${tsa}/128` : `${tsa}/32`;
}

/**
 * The BGP router ID of the IPFE at `address`: the address itself when IPv4. An IPv6-only node has
 * no IPv4 address for FRR to take one from, and with 0.0.0.0 bgpd opens no session; so a 32-bit
 * ID from a hash of the address (the same on every start, distinct between the group's nodes).
 */
export function routerIdOf(address: string): string {
  if (net.isIPv4(address)) return address;
  const canonical = new URL(`http://[${address}]/`).hostname;
  const bytes = createHash('sha256').update(canonical).digest().subarray(0, 4);
  // 0.0.0.0 is no router ID.
  if (bytes.every((b) => b === 0)) bytes[3] = 1;
  return [...bytes].join('.');
}

/** The configuration of each FRR daemon the agent runs (one file each: see renderFrrConfig). */
export interface FrrConfigs {
  readonly zebra: string;
  readonly bfdd: string;
  readonly bgpd: string;
}

/**
 * The configuration of an agent's own zebra, bfdd and bgpd: one BGP speaker with the upstream
 * routers as neighbours, each with BFD at the configured timers; nothing learnt from them is
 * installed (the IPFE routes nothing; a default route from the router would change its own
 * forwarding); and the `network` statements of the TSAs announced now (no import check: the TSA
 * is never an address on this node, the direct path's netdev chain catches its packets). A file
 * per daemon: a daemon reading another's section skips its first line and then leaves
 * configuration mode at its `exit`, losing the rest.
 */
export function renderFrrConfig(
  bgp: Bgp,
  options: { hostname: string; routerId: string | null; announced: readonly string[] },
): FrrConfigs {
  const head = ['frr defaults datacenter', `hostname ${options.hostname}`, '!'];
  const bfdd = [
    ...head,
    'bfd',
    ' profile ipfe',
    `  transmit-interval ${bgp.bfdIntervalMs}`,
    `  receive-interval ${bgp.bfdIntervalMs}`,
    `  detect-multiplier ${bgp.bfdMultiplier}`,
    ' exit',
    'exit',
    '',
  ];
  const v4 = options.announced.filter((p) => !p.includes(':'));
  const v6 = options.announced.filter((p) => p.includes(':'));
  const lines = [
    ...head,
    'route-map IPFE-IN deny 10',
    'exit',
    '!',
    'route-map IPFE-OUT permit 10',
    'exit',
    '!',
    `router bgp ${bgp.asn}`,
  ];
  if (options.routerId) lines.push(` bgp router-id ${options.routerId}`);
  lines.push(' no bgp ebgp-requires-policy', ' no bgp network import-check');
  for (const peer of bgp.peers) {
    lines.push(
      ` neighbor ${peer.address} remote-as ${peer.asn}`,
      ` neighbor ${peer.address} bfd profile ipfe`,
      ` neighbor ${peer.address} timers 3 9`,
      ` neighbor ${peer.address} timers connect 1`,
    );
  }
  for (const [family, prefixes, ipv6] of [
    ['ipv4', v4, false],
    ['ipv6', v6, true],
  ] as const) {
    lines.push(` address-family ${family} unicast`);
    for (const prefix of prefixes) lines.push(`  network ${prefix}`);
    for (const peer of bgp.peers) {
      if (net.isIPv6(peer.address) !== ipv6) continue;
      lines.push(
        `  neighbor ${peer.address} activate`,
        `  neighbor ${peer.address} route-map IPFE-IN in`,
        `  neighbor ${peer.address} route-map IPFE-OUT out`,
      );
    }
    lines.push(' exit-address-family');
  }
  lines.push('exit', '');
  return { zebra: [...head, ''].join('\n'), bfdd: bfdd.join('\n'), bgpd: lines.join('\n') };
}

/** The vtysh commands that move the announcements from `before` to `after`. */
export function announceCommands(
  asn: number,
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
): string[] {
  const commands: string[] = [];
  for (const [family, ipv6] of [
    ['ipv4', false],
    ['ipv6', true],
  ] as const) {
    const changes = [
      ...[...before]
        .filter((p) => !after.has(p) && p.includes(':') === ipv6)
        .map((p) => `no network ${p}`),
      ...[...after]
        .filter((p) => !before.has(p) && p.includes(':') === ipv6)
        .map((p) => `network ${p}`),
    ];
    if (changes.length === 0) continue;
    commands.push(
      `router bgp ${asn}`,
      `address-family ${family} unicast`,
      ...changes,
      'exit-address-family',
      'exit',
    );
  }
  return commands;
}

type Session = AgentBgpStatus['sessions'][number];

/**
 * Sessions from `show bgp neighbors json` and `show bfd peers json`, one per configured peer in
 * its order (a peer FRR does not list yet is `connecting`, BFD `unknown`).
 */
export function sessionsOf(
  peers: readonly string[],
  neighbors: unknown,
  bfdPeers: unknown,
): Session[] {
  const bgpState = (peer: string): Session['state'] => {
    const n = (neighbors as Record<string, { bgpState?: unknown }> | null)?.[peer];
    const state = typeof n?.bgpState === 'string' ? n.bgpState : '';
    if (state === 'Established') return 'established';
    if (state === '' || state === 'Idle' || state === 'Clearing' || state === 'Deleted')
      return neighbors && n ? 'down' : 'connecting';
    return 'connecting';
  };
  const bfdState = (peer: string): Session['bfd'] => {
    if (!Array.isArray(bfdPeers)) return 'unknown';
    const found = bfdPeers.find(
      (p: unknown) =>
        typeof p === 'object' && p !== null && (p as { peer?: unknown }).peer === peer,
    ) as { status?: unknown } | undefined;
    if (!found) return 'unknown';
    return found.status === 'up' ? 'up' : 'down';
  };
  return peers.map((peer) => ({ peer, state: bgpState(peer), bfd: bfdState(peer) }));
}
