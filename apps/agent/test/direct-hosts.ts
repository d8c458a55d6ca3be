import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Configuration } from '@ipfe/schema';
import { formatHostPort } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { repoRoot, type Topology } from './netns-topology.ts';
import { withPortSlices } from '../src/testing.ts';

/**
 * An application server of the direct path: the reporter on `address` (heartbeats every 200 ms)
 * holding the TSAs (`--hold-tsa`, e.g. `10.0.0.100` or `10.0.0.100@eth1`).
 */
export function startHoldingReporter(
  topology: Topology,
  host: string,
  options: { address: string; holdTsa: string; connectionCapacity?: number; mpsCapacity?: number },
): ChildProcess {
  return topology.run(host, [
    process.execPath,
    join(repoRoot, 'packages/reporter/bin/ipfe-reporter.js'),
    '--listen',
    formatHostPort(options.address, 9675),
    '--mps-capacity',
    String(options.mpsCapacity ?? 100),
    '--connection-capacity',
    String(options.connectionCapacity ?? 100),
    '--interval-ms',
    '200',
    '--hold-tsa',
    options.holdTsa,
  ]);
}

/**
 * A TCP service on every address of the host (direct-server.ts): it answers with the host's name
 * and tells `onPeer` each client address it sees (IPv4-mapped addresses unmapped).
 */
export function startNamingService(
  topology: Topology,
  host: string,
  port: number,
  onPeer: (address: string) => void,
): ChildProcess {
  const service = topology.run(host, [
    process.execPath,
    '--import',
    'tsx',
    join(repoRoot, 'apps/agent/test/direct-server.ts'),
    host,
    String(port),
  ]);
  createInterface({ input: service.stdout! }).on('line', (line) => {
    const [word, address] = line.split(' ');
    if (word === 'peer' && address) onPeer(address.replace(/^::ffff:/, ''));
  });
  return service;
}

/** An agent's state folder holding revision 1 of `config`, so that it starts with it. */
export function stateDirWith(dir: string, slot: string, config: Configuration): string {
  const stateDir = join(dir, slot);
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, 'config.json'), JSON.stringify(buildDocument(1, config)));
  return stateDir;
}

/** The command that lists what an agent's direct path counted per IPv4 TSA (its set `in4`). */
export const countedInCommand = (slot: string) => [
  'nft',
  '-j',
  'list',
  'set',
  'netdev',
  `ipfe_${slot}`,
  'in4',
];

/** The packets counted towards `tsa` in that listing (-1: none listed). */
export function packetsTowards(listing: string, tsa: string): number {
  const items = (
    JSON.parse(listing || '{"nftables":[]}') as {
      nftables: { set?: { elem?: { elem: { val: string; counter: { packets: number } } }[] } }[];
    }
  ).nftables;
  const element = items.flatMap((i) => i.set?.elem ?? []).find((e) => e.elem.val === tsa);
  return element?.elem.counter.packets ?? -1;
}

/**
 * What the two-network SCTP topologies' configurations share: the mates A1 and B1, an XSI network
 * on each bridge (`<prefix>.0/24`), each server with an address on both and a port range of its own.
 */
export function twoNetworkBase(options: {
  a1: string;
  b1: string;
  prefixes: [string, string];
  servers: { name: string; address: string; secondAddress: string }[];
  forwardedPorts: number[];
}) {
  return {
    options: {
      ipfe: { A1: { address: options.a1 }, B1: { address: options.b1 } },
      forwardedPorts: options.forwardedPorts,
      mateIntervalMs: 100,
      mateTimeoutMs: 600,
      connectTimeoutS: 2,
    },
    xsiNetworks: [
      { name: 'xsi', cidr: `${options.prefixes[0]}.0/24` },
      { name: 'xsi2', cidr: `${options.prefixes[1]}.0/24` },
    ],
    appServers: withPortSlices(
      options.servers.map((s) => ({ name: s.name, addresses: [s.address, s.secondAddress] })),
    ),
  };
}
