import type { SctpRejectOption, TcpRejectOption } from '@ipfe/schema';

/**
 * What the kernel paths' rules say for the Options that are not about one TSA: the reject
 * options and the Global Packet Rate Limit (issue 27 item 3). Pure; both nft renderers use them.
 */

const ICMPX_TYPES = {
  icmpHostUnreachable: 'host-unreachable',
  icmpPortUnreachable: 'port-unreachable',
  icmpAdminProhibited: 'admin-prohibited',
} as const;

/**
 * The nft statement of a reject option. The ICMP ones are `icmpx` types, which nftables sends as
 * ICMP to an IPv4 client and as their ICMPv6 equivalents (address unreachable, port unreachable,
 * administratively prohibited) to an IPv6 one.
 */
export function rejectStatement(option: TcpRejectOption | SctpRejectOption): string {
  if (option === 'tcpReset') return 'reject with tcp reset';
  if (option === 'drop') return 'drop';
  return `reject with icmpx type ${ICMPX_TYPES[option]}`;
}

/**
 * A limit's burst: a tenth of a second of the rate, at least 100 packets, as policers allow. At the
 * lowest limit (1,000 packets/s) a burst of 1/50 s let a client opening ten connections at once be
 * throttled while far below the limit over any second.
 */
const burstOf = (pps: number) => Math.max(100, Math.round(pps / 10));

/**
 * The named limit object of a port's Global Packet Rate Limit. The rate and burst are in its
 * name: a new rate is a new object (nft cannot change a limit in place, and `add` keeps the old
 * one), and an object keeps its tokens across the table's reprogramming (its chains are flushed, its named objects are not). One a rate no longer
 * in use leaves behind stays, unreferenced, until the table is removed: deleting one that may
 * already be gone (a table someone deleted) would make the whole transaction fail.
 */
export const limitName = (port: number, pps: number) => `lim_${port}_${pps}_${burstOf(pps)}`;

/** The limit's own declaration. */
export function limitDeclaration(table: string, port: number, pps: number): string {
  return `add limit ${table} ${limitName(port, pps)} { rate over ${pps}/second burst ${burstOf(pps)} packets }`;
}

/** The ports a plan forwards (every TSA forwards the Options' ports), in order. */
export function forwardedPortsOf(plan: {
  tsas: readonly { ports: readonly number[] }[];
}): number[] {
  return [...new Set(plan.tsas.flatMap((p) => p.ports))].sort((a, b) => a - b);
}
