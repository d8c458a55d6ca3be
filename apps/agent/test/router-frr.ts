import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Topology } from './netns-topology.ts';

const FRR = '/usr/lib/frr';
const DAEMONS = ['zebra', 'bfdd', 'bgpd'] as const;

/** Whether FRR's daemons are installed (Debian `frr`). */
export const frrAvailable =
  spawnSync('which', ['vtysh']).status === 0 &&
  DAEMONS.every((d) => spawnSync('test', ['-x', join(FRR, d)]).status === 0);

/** The head of each daemon's configuration: FRR's data-centre defaults. */
export const FRR_HEAD = 'frr defaults datacenter\nhostname router\n!\n';

/** A BFD profile `ipfe` with these timers, for the router's bfdd. */
export const bfdProfile = (intervalMs: number, multiplier: number) =>
  `${FRR_HEAD}bfd\n profile ipfe\n  transmit-interval ${intervalMs}\n  receive-interval ${intervalMs}\n  detect-multiplier ${multiplier}\n exit\nexit\n`;

/**
 * An upstream router's FRR in host `host` of a test's topology, in pathspace `space` (sockets,
 * configuration and logs in /var/run/frr/<space>, owned by FRR's user): zebra, then bfdd and bgpd
 * with their configurations. Its processes end with the topology.
 */
export function startRouterFrr(
  topology: Topology,
  host: string,
  space: string,
  configs: { bfdd: string; bgpd: string },
) {
  const run = `/var/run/frr/${space}`;
  mkdirSync(run, { recursive: true });
  const id = (flag: string) => Number(spawnSync('id', [flag, 'frr'], { encoding: 'utf8' }).stdout);
  chownSync(run, id('-u'), id('-g'));
  const files = { zebra: FRR_HEAD, ...configs };
  for (const daemon of DAEMONS) {
    writeFileSync(join(run, `${daemon}.conf`), files[daemon]);
    topology.run(host, [
      join(FRR, daemon),
      '-N',
      space,
      '-f',
      join(run, `${daemon}.conf`),
      '-i',
      join(run, `${daemon}.pid`),
      '--log',
      `file:${join(run, `${daemon}.log`)}`,
    ]);
    // bgpd and bfdd reach zebra through its socket: it must be up first.
    spawnSync('sleep', ['0.3']);
  }
}
