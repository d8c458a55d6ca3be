import ipaddr from 'ipaddr.js';

export type IpFamily = 'ipv4' | 'ipv6';

/** Parses a plain IPv4 (dotted quad) or IPv6 address; anything else (zone ids, hex quads) is null. */
function parseStrict(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes(':') || text.includes('%') || !ipaddr.IPv6.isValid(text)) return null;
  return ipaddr.IPv6.parse(text);
}

export function isIpAddress(text: string): boolean {
  return parseStrict(text) !== null;
}

/**
 * What is wrong with a spelling that is not a plain address, in words an operator can act on, or
 * null when the text is a plain address (or when no more can be said than that it is none).
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) name an IPv4 host in IPv6 sockets only: never a
 * Target Set Address or a server's, so they are refused with the IPv4 form to enter instead.
 */
export function addressSpellingProblem(text: string): string | null {
  if (/^\[.*\]$/.test(text)) return `must be written without brackets: ${text.slice(1, -1)}`;
  if (text.includes('%'))
    return `has a zone index (${text.slice(text.indexOf('%'))}): zone indexes are not allowed`;
  const ip = parseStrict(text);
  if (ip?.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    const ipv4 = (ip as ipaddr.IPv6).toIPv4Address().toString();
    return `must be the IPv4 form ${ipv4}: ${text} is an IPv4-mapped IPv6 address`;
  }
  return null;
}

/** One spelling per address, so that equality is string equality (RFC 5952 for IPv6). */
export function canonicalIp(text: string): string {
  const ip = parseStrict(text);
  if (!ip) return text;
  return ip.kind() === 'ipv6' ? (ip as ipaddr.IPv6).toRFC5952String() : ip.toString();
}

export function ipFamily(text: string): IpFamily | null {
  const ip = parseStrict(text);
  return ip ? ip.kind() : null;
}

/** Addresses that can never carry a unicast TCP connection. */
export function isUnusableUnicast(text: string): boolean {
  const ip = parseStrict(text);
  if (!ip) return false;
  const range = ip.range();
  return range === 'unspecified' || range === 'multicast' || range === 'broadcast';
}

interface ParsedCidr {
  network: ipaddr.IPv4 | ipaddr.IPv6;
  prefix: number;
}

function parseCidrStrict(text: string): ParsedCidr | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const address = parseStrict(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (address.kind() === 'ipv4' ? 32 : 128)) return null;
  return { network: address, prefix };
}

export function isCidr(text: string): boolean {
  return parseCidrStrict(text) !== null;
}

/** The network address of a CIDR, e.g. "10.1.2.0/24" for "10.1.2.3/24"; null when not a CIDR. */
export function cidrNetwork(text: string): string | null {
  const parsed = parseCidrStrict(text);
  if (!parsed) return null;
  const network =
    parsed.network.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(text).toString()
      : ipaddr.IPv6.networkAddressFromCIDR(text).toRFC5952String();
  return `${network}/${parsed.prefix}`;
}

export function canonicalCidr(text: string): string {
  const parsed = parseCidrStrict(text);
  if (!parsed) return text;
  return `${canonicalIp(text.slice(0, text.indexOf('/')))}/${parsed.prefix}`;
}

export function cidrFamily(text: string): IpFamily | null {
  return parseCidrStrict(text)?.network.kind() ?? null;
}

export function cidrContains(cidr: string, address: string): boolean {
  const range = parseCidrStrict(cidr);
  const ip = parseStrict(address);
  if (!range || !ip || range.network.kind() !== ip.kind()) return false;
  return ip.match(range.network, range.prefix);
}

export function cidrsOverlap(a: string, b: string): boolean {
  const ra = parseCidrStrict(a);
  const rb = parseCidrStrict(b);
  if (!ra || !rb || ra.network.kind() !== rb.network.kind()) return false;
  const shorter = Math.min(ra.prefix, rb.prefix);
  return ra.network.match(rb.network, shorter);
}

/** A peer node group member: a single address or a CIDR. */
export function memberMatches(member: string, address: string): boolean {
  return member.includes('/') ? cidrContains(member, address) : canonicalIp(member) === address;
}

/** "127.0.0.1:8701", "[2001:db8::1]:8701" or "localhost:8701" → host and port; null otherwise. */
export function parseHostPort(text: string): { host: string; port: number } | null {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text.trim());
  if (!match) return null;
  const host = match[1] ?? match[2]!;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  if (match[1] && !isIpAddress(host)) return null;
  return { host, port };
}

/** An address and a port as one endpoint: "127.0.0.1:3868", "[fd00:1::101]:3868" (RFC 3986). */
export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
