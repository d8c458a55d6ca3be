import type { AgentStatus } from '@ipfe/schema';
import type { Topology } from './netns-topology.ts';
import { until } from './poll.ts';

/**
 * What the measurements' lab tests read of A1 (kernel and direct paths alike): its status and
 * /metrics through its control API from inside its namespace, and what its nft set `rx4` (in the
 * path's table, `inet` or `netdev ipfe_a1`) counted towards a TSA.
 */
export function a1Measurements(
  topology: Topology,
  options: { address: string; token: string; family: 'inet' | 'netdev' },
) {
  /** GET `path` of A1's control API, from inside its namespace. */
  function fromA1(path: string): string {
    const script = `fetch('http://${options.address}:8701${path}', { headers: { authorization: 'Bearer ${options.token}' } })
    .then((r) => r.text()).then((t) => console.log(t))`;
    return topology.exec('a1', [process.execPath, '-e', script]).stdout;
  }

  const measurementsOf = () => (JSON.parse(fromA1('/v1/status')) as AgentStatus).measurements!;
  const targetSet = (number: number) =>
    measurementsOf().targetSets.find((t) => t.number === number)!;
  const sentToServers = (ts: ReturnType<typeof targetSet>) =>
    ts.servers.reduce((sum, s) => sum + (s.txBytes ?? 0), 0);

  /** The value of one series of A1's /metrics, by its name and labels (NaN: absent). */
  function metric(name: string, labels: Record<string, string>): number {
    const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    const line = fromA1('/metrics')
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
    return Number(line?.split(' ').at(-1) ?? NaN);
  }

  /** The bytes A1's nft set `rx4` counted towards `tsa` now (0: none listed). */
  function countedBytes(tsa: string): number {
    const listing = topology.exec('a1', [
      'nft',
      '-j',
      'list',
      'set',
      options.family,
      'ipfe_a1',
      'rx4',
    ]).stdout;
    const items = (
      JSON.parse(listing || '{"nftables":[]}') as {
        nftables: { set?: { elem?: { elem: { val: string; counter: { bytes: number } } }[] } }[];
      }
    ).nftables;
    const element = items.flatMap((i) => i.set?.elem ?? []).find((e) => e.elem.val === tsa);
    return element?.elem.counter.bytes ?? 0;
  }

  /**
   * Target Set `number`'s measurements once the agent has read what nftables counted towards its
   * TSA so far (its reads come a second or more apart): nothing sent before is still to come.
   */
  function settled(number: number, tsa: string) {
    return until(`the agent's read of what ${tsa} received`, () => {
      const ts = targetSet(number);
      return ts.rxBytes === countedBytes(tsa) && ts;
    });
  }

  /**
   * Waits until /metrics says what the status says (`series` and `status` read anew each time):
   * the last packets of a test's traffic (a connection's closing, an association's shutdown) may
   * be counted between two reads, so one read of each need not agree.
   */
  function agreeing(what: string, series: () => number, status: () => number) {
    let last = '';
    return until(`${what} alike in /metrics and the status`, () => {
      const [inMetrics, inStatus] = [series(), status()];
      last = `/metrics ${inMetrics}, status ${inStatus}`;
      return inMetrics === inStatus ? true : null;
    }).catch((err: Error) => {
      throw new Error(`${err.message} (${last})`);
    });
  }

  /** Target Set `number`'s bytes received at `tsa` and sent on to `servers`, alike in both. */
  async function bytesAgreeing(number: number, tsa: string, servers: readonly string[]) {
    const targetSetLabel = String(number);
    await agreeing(
      'the bytes received',
      () => metric('ipfe_tsa_rx_bytes_total', { target_set: targetSetLabel, tsa }),
      () => targetSet(number).rxBytes!,
    );
    await agreeing(
      'the bytes sent on',
      () =>
        servers.reduce(
          (sum, server) =>
            sum + metric('ipfe_server_tx_bytes_total', { target_set: targetSetLabel, server }),
          0,
        ),
      () => sentToServers(targetSet(number)),
    );
  }

  return {
    fromA1,
    measurementsOf,
    targetSet,
    sentToServers,
    metric,
    settled,
    agreeing,
    bytesAgreeing,
  };
}
