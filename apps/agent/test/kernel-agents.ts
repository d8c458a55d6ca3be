import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationShape, type DataPath } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';
import { repoRoot, startNamedServer, type Topology } from './netns-topology.ts';
import { until } from './poll.ts';
import { withPortSlices } from '../src/testing.ts';

/**
 * An agent in a host of a test's topology, on the kernel data path unless told, holding its TSAs
 * on `device` (eth0 unless told: `--manage-addresses`), and with `sync` sharing conntrack state
 * with its mate; `flags`: more of its flags (e.g. `--next-hop`).
 */
export function startNetnsAgent(
  topology: Topology,
  slot: 'a1' | 'a2' | 'b1' | 'b2',
  options: {
    control: string;
    stateDir: string;
    token: string;
    sync: boolean;
    dataplane?: DataPath;
    device?: string;
    flags?: string[];
  },
): ChildProcess {
  return topology.run(
    slot,
    [
      process.execPath,
      join(repoRoot, 'apps/agent/bin/ipfe-agent.js'),
      '--slot',
      slot.toUpperCase(),
      '--control',
      options.control,
      '--state-dir',
      options.stateDir,
      '--dataplane',
      options.dataplane ?? 'kernel',
      '--manage-addresses',
      options.device ?? 'eth0',
      ...(options.sync ? ['--sync-conntrack'] : []),
      ...(options.flags ?? []),
    ],
    { IPFE_AGENT_TOKEN: options.token, LOG_LEVEL: process.env.AGENT_LOG_LEVEL ?? 'warn' },
  );
}

/** Waits until the agent's conntrackd holds at least `connections` of its mate's (external cache). */
export async function untilExternalCacheHolds(
  topology: Topology,
  slot: 'a1' | 'a2',
  stateDir: string,
  connections: number,
) {
  await until(`${slot.toUpperCase()} knows the connections`, () => {
    const cache = topology.exec(slot, [
      'conntrackd',
      '-C',
      join(stateDir, 'conntrackd.conf'),
      '-s',
      'cache',
    ]).stdout;
    return Number(/cache:external\s+active objects:\s+(\d+)/.exec(cache)?.[1] ?? 0) >= connections;
  });
}

/** The hosts of a mates test: the IPFEs A1 and A2 and the servers s1 and s2, by address. */
export interface MatesHosts {
  a1: string;
  a2: string;
  s1: string;
  s2: string;
}

/**
 * Two mates forwarding one Hash Target Set (its TSA preferring A1) to s1 and s2 with these
 * weights, each agent's state folder holding revision 1 so that it starts with it; forwarding on
 * in both IPFE hosts; both servers up (a named echo service and a reporter each).
 */
export function prepareMates(
  topology: Topology,
  dir: string,
  mates: { hosts: MatesHosts; cidr: string; tsa: string; weights: [number, number] },
) {
  const { hosts } = mates;
  const v6 = mates.tsa.includes(':');
  const config = configurationShape.parse({
    options: {
      ipfe: { A1: { address: hosts.a1 }, A2: { address: hosts.a2 } },
      mateIntervalMs: 100,
      mateTimeoutMs: 600,
      connectTimeoutS: 2,
    },
    xsiNetworks: [{ name: 'xsi', cidr: mates.cidr }],
    appServers: withPortSlices(
      (['s1', 's2'] as const).map((s) => ({ name: s, addresses: [hosts[s]] })),
    ),
    targetSets: [
      {
        number: 1,
        family: v6 ? 'ipv6' : 'ipv4',
        algorithm: 'hash',
        primary: { address: mates.tsa, activeIpfe: 'A1' },
        servers: [
          { address: hosts.s1, weight: mates.weights[0] },
          { address: hosts.s2, weight: mates.weights[1] },
        ],
      },
    ],
  });
  for (const slot of ['a1', 'a2'] as const) {
    const forwarding = v6 ? 'net.ipv6.conf.all.forwarding=1' : 'net.ipv4.ip_forward=1';
    topology.exec(slot, ['sysctl', '-qw', forwarding]);
    mkdirSync(join(dir, slot), { recursive: true });
    writeFileSync(join(dir, slot, 'config.json'), JSON.stringify(buildDocument(1, config)));
  }
  for (const s of ['s1', 's2'] as const) startNamedServer(topology, s, hosts[s]);
}
