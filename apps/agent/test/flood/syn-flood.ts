import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { compiled } from '../c-build.ts';

/**
 * syn-flood.c: a paced flood of TCP SYNs over a raw socket (see its top comment), compiled at
 * test time, run in one of a topology's namespaces.
 */
export const buildSynFlood = () =>
  compiled({
    source: new URL('./syn-flood.c', import.meta.url).pathname,
    flags: ['-O2', '-Wall'],
    libraries: [],
  });

/** Anything that runs a command in one of its hosts' namespaces (Topology, the bench's net). */
interface Hosts {
  run(host: string, command: string[]): ChildProcess;
  exec(host: string, command: string[]): { status: number | null; stderr: string };
}

export interface Flood {
  /** The address the flood comes from: one of its own, so that what answers it can be dropped. */
  source: string;
  target: string;
  port: number;
  pps: number;
  seconds: number;
}

/**
 * Floods from `host` (which gets `flood.source` as a second address, and drops whatever comes back
 * to it: a SYN-ACK must not be answered by a RST that would pass the IPFE again). Resolves when
 * the flood is over, with what it sent.
 */
export async function synFlood(
  hosts: Hosts,
  host: string,
  flood: Flood,
): Promise<{ sent: number; errors: number; seconds: number }> {
  const binary = await buildSynFlood();
  const sh = (command: string[]) => {
    const result = hosts.exec(host, command);
    if (result.status !== 0)
      throw new Error(`${host}: ${command.join(' ')}: ${result.stderr.trim()}`);
  };
  sh(['ip', 'addr', 'replace', `${flood.source}/32`, 'dev', 'eth0']);
  sh([
    'nft',
    `add table ip synflood; add chain ip synflood in { type filter hook prerouting priority -300; }; flush chain ip synflood in; add rule ip synflood in ip daddr ${flood.source} drop`,
  ]);
  const child = hosts.run(host, [
    binary,
    flood.source,
    flood.target,
    String(flood.port),
    String(flood.pps),
    String(flood.seconds),
  ]);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('close', (code) =>
      reject(new Error(`syn-flood ended (${code}) without its report`)),
    );
  });
  return JSON.parse(line) as { sent: number; errors: number; seconds: number };
}
