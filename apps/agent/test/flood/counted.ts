/**
 * Packets counted where they arrive, apart from the IPFE: a table of the test's own (`ip
 * <table>`, or `ip6` for IPv6 packets, `arp` for ARP, hooked before anything else) whose rules
 * each count what they match, named by their comment. What the flood's test and benchmark read at
 * the servers and at the client, and the address holder's test at a neighbour.
 */

/** Anything that runs a command in one of its hosts' namespaces (Topology, the bench's net). */
interface Hosts {
  exec(host: string, command: string[]): { status: number | null; stdout: string; stderr: string };
}

/** The table's family: `ip` counts IPv4 packets, `ip6` IPv6 ones, `arp` ARP (hook `input`). */
export type CountedFamily = 'ip' | 'ip6' | 'arp';

/** Adds the table on `host`: one counting rule per name, matching what `matches` says. */
export function countArrivals(
  hosts: Hosts,
  host: string,
  table: string,
  hook: 'prerouting' | 'input',
  matches: Record<string, string>,
  family: CountedFamily = 'ip',
): void {
  const script = [
    `add table ${family} ${table}`,
    `add chain ${family} ${table} in { type filter hook ${hook} priority -300; }`,
    ...Object.entries(matches).map(
      ([name, match]) => `add rule ${family} ${table} in ${match} counter comment "${name}"`,
    ),
  ].join('; ');
  const result = hosts.exec(host, ['nft', script]);
  if (result.status !== 0) throw new Error(`${host}: nft ${script}: ${result.stderr.trim()}`);
}

/** What each rule of the table on `host` has counted, by its name. */
export function arrivals(
  hosts: Hosts,
  host: string,
  table: string,
  family: CountedFamily = 'ip',
): Record<string, number> {
  const listing = hosts.exec(host, ['nft', '-j', 'list', 'table', family, table]).stdout;
  const counts: Record<string, number> = {};
  for (const { rule } of (
    JSON.parse(listing) as { nftables: { rule?: { comment?: string; expr: unknown[] } }[] }
  ).nftables) {
    const counter = rule?.expr.find(
      (e): e is { counter: { packets: number } } =>
        typeof e === 'object' && e !== null && 'counter' in e,
    );
    if (rule?.comment && counter) counts[rule.comment] = counter.counter.packets;
  }
  return counts;
}
