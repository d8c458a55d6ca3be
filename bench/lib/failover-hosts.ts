import { join } from 'node:path';
import { LineDriver } from './driver.ts';
import type { BenchNet } from './netns.ts';
import { ROOT } from './results.ts';

/**
 * What both failover benchmarks (an agent killed, a link cut) run beside the IPFEs: the servers,
 * each a reporter and name-echo.ts on `port` of every address, and the failover client.
 */
export function startEchoServers(
  net: BenchNet,
  servers: Record<string, string>,
  port: number,
  reporterFlags: readonly string[] = [],
): void {
  for (const [host, address] of Object.entries(servers)) {
    net.run(host, [
      process.execPath,
      join(ROOT, 'packages/reporter/bin/ipfe-reporter.js'),
      '--listen',
      `${address}:9675`,
      '--mps-capacity',
      '1000',
      '--connection-capacity',
      '1000',
      '--interval-ms',
      '200',
      ...reporterFlags,
    ]);
    // On every address: a path whose servers hold the TSA is connected to on the TSA.
    net.run(host, [
      process.execPath,
      '--import',
      'tsx',
      join(ROOT, 'bench/drivers/name-echo.ts'),
      '0.0.0.0',
      String(port),
    ]);
  }
}

/** failover-client.ts in `client`, told the TSA and the IPFEs' addresses and MACs (of their eth0). */
export async function startFailoverClient(
  net: BenchNet,
  target: { tsa: string; port: number; a1: string; a2: string },
): Promise<LineDriver> {
  const mac = (host: string) => net.sh(host, ['cat', '/sys/class/net/eth0/address']).trim();
  const client = new LineDriver(
    net.run('client', [
      process.execPath,
      '--import',
      'tsx',
      join(ROOT, 'bench/drivers/failover-client.ts'),
    ]),
  );
  await client.ready();
  await client.ask({
    op: 'nodes',
    nodes: {
      tsa: target.tsa,
      port: target.port,
      ipfe: {
        a1: { address: target.a1, mac: mac('a1') },
        a2: { address: target.a2, mac: mac('a2') },
      },
    },
  });
  return client;
}
