import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { canonicalIp, ipFamily, isUnusableUnicast, type IpFamily } from '@ipfe/schema';

/** The nftables table (one in the `arp` family, one in `ip6`) that keeps a held TSA quiet. */
export const TSA_TABLE = 'ipfe_tsa';

export interface HeldTsa {
  address: string;
  family: IpFamily;
  device: string;
}

/**
 * `--hold-tsa 192.0.2.10,2001:db8::10@eth1`: each address canonical, on `@DEV` or on the default
 * device. Returns one message per bad part instead.
 */
export function parseHoldTsa(
  text: string,
  defaultDevice: string | undefined,
): { held: HeldTsa[] } | { errors: string[] } {
  const errors: string[] = [];
  const held = new Map<string, HeldTsa>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const at = part.lastIndexOf('@');
    const raw = at < 0 ? part : part.slice(0, at);
    const device = at < 0 ? defaultDevice : part.slice(at + 1);
    const family = ipFamily(raw);
    if (!family || isUnusableUnicast(raw) || isLocalOnly(raw)) {
      errors.push(
        `--hold-tsa takes unicast IPv4 or IPv6 addresses separated by commas, not "${part}"`,
      );
      continue;
    }
    if (!device) {
      errors.push(
        `--hold-tsa ${raw}: which interface? Give --tsa-device DEV (or ${raw}@DEV); the --listen address is on no interface here`,
      );
      continue;
    }
    const address = canonicalIp(raw);
    held.set(address, { address, family, device });
  }
  return errors.length ? { errors } : { held: [...held.values()] };
}

/** Loopback, link-local and IPv4-mapped addresses are no TSA. */
function isLocalOnly(address: string) {
  const canonical = canonicalIp(address);
  if (!canonical.includes(':'))
    return canonical.startsWith('127.') || canonical.startsWith('169.254.');
  return canonical === '::1' || canonical.includes('.') || /^fe[89ab]/.test(canonical);
}

/** The 128 bits of an IPv6 address as one hex number, which is how nft matches a raw payload. */
export function ipv6Hex(address: string): string {
  const [head = '', tail] = canonicalIp(address).split('::') as [string, string?];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return `0x${[...left, ...middle, ...right].map((g) => g.padStart(4, '0')).join('')}`;
}

/**
 * The nft script that keeps the held TSAs quiet on the link: nothing is answered for them, nothing
 * is announced from them, and a neighbour solicitation the kernel would send from one (IPv6 takes
 * the source of the packet waiting for the neighbour) is sent from the device's link-local address
 * instead — else every neighbour would learn the TSA at this server's MAC. Replaces the tables if
 * they exist (a run after a SIGKILL).
 */
export function tsaRules(held: HeldTsa[], linkLocal: Record<string, string>): string {
  const lines: string[] = [];
  const v4 = held.filter((h) => h.family === 'ipv4');
  const v6 = held.filter((h) => h.family === 'ipv6');
  const chains = (input: string[], output: string[]) => [
    '  chain input {',
    '    type filter hook input priority filter; policy accept;',
    ...input.map((r) => `    ${r}`),
    '  }',
    '  chain output {',
    '    type filter hook output priority filter; policy accept;',
    ...output.map((r) => `    ${r}`),
    '  }',
  ];
  if (v4.length) {
    const set = `{ ${v4.map((h) => h.address).join(', ')} }`;
    lines.push(
      `add table arp ${TSA_TABLE}`,
      `delete table arp ${TSA_TABLE}`,
      `table arp ${TSA_TABLE} {`,
      ...chains([`arp daddr ip ${set} drop`], [`arp saddr ip ${set} drop`]),
      '}',
    );
  }
  if (v6.length) {
    // nft 1.0.6 has no `icmpv6 taddr`: the target address is 8 bytes into the ICMPv6 header.
    const target = (h: HeldTsa) => `@th,64,128 ${ipv6Hex(h.address)}`;
    lines.push(
      `add table ip6 ${TSA_TABLE}`,
      `delete table ip6 ${TSA_TABLE}`,
      `table ip6 ${TSA_TABLE} {`,
      ...chains(
        v6.map((h) => `icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert } ${target(h)} drop`),
        v6.flatMap((h) => [
          `icmpv6 type nd-neighbor-advert ${target(h)} drop`,
          `icmpv6 type nd-neighbor-solicit ip6 saddr ${h.address} oifname "${h.device}" ip6 saddr set ${linkLocal[h.device]}`,
        ]),
      ),
      '}',
    );
  }
  return `${lines.join('\n')}\n`;
}

interface IpAddrJson {
  ifname: string;
  link_type?: string;
  addr_info?: { family: string; local: string; scope: string }[];
}

function ipJson(args: string[]): IpAddrJson[] {
  return JSON.parse(execFileSync('ip', ['-j', ...args], { encoding: 'utf8' }) || '[]');
}

/** The interface that holds an address here, if any. */
export function deviceOf(address: string): string | undefined {
  try {
    const wanted = canonicalIp(address);
    return ipJson(['addr', 'show']).find((i) =>
      i.addr_info?.some((a) => canonicalIp(a.local) === wanted),
    )?.ifname;
  } catch {
    return undefined;
  }
}

function failure(err: unknown) {
  return (err as { stderr?: Buffer | string }).stderr?.toString().trim() || (err as Error).message;
}

/** What is wrong with holding these TSAs here, one line each (root, nft, each device). */
export function holdTsaProblems(held: HeldTsa[]): string[] {
  if (process.getuid?.() !== 0)
    return ['--hold-tsa needs root (it adds addresses, sysctls and an nftables table)'];
  const lacking = [
    ['ip', 'iproute2'],
    ['nft', 'nftables'],
  ].filter(([tool]) => spawnSync(tool!, ['-V']).status !== 0);
  if (lacking.length)
    return [
      `--hold-tsa needs ${lacking.map(([tool, pkg]) => `${tool} (Debian package ${pkg})`).join(' and ')}`,
    ];
  const problems: string[] = [];
  const tsas = new Set(held.map((h) => h.address));
  for (const device of new Set(held.map((h) => h.device))) {
    let link: IpAddrJson | undefined;
    try {
      link = ipJson(['addr', 'show', 'dev', device])[0];
    } catch {
      problems.push(`--tsa-device ${device}: no such interface`);
      continue;
    }
    if (link?.link_type === 'loopback') {
      problems.push(
        `--tsa-device ${device} is the loopback: SCTP stacks (usrsctp) ignore its addresses; name the server's XSI interface`,
      );
      continue;
    }
    const own = (link?.addr_info ?? []).filter((a) => !tsas.has(canonicalIp(a.local)));
    const families = new Set(held.filter((h) => h.device === device).map((h) => h.family));
    // arp_announce=2 makes ARP requests come from the device's own address: it needs one.
    if (families.has('ipv4') && !own.some((a) => a.family === 'inet'))
      problems.push(
        `--tsa-device ${device} has no IPv4 address of its own to send ARP requests from (the server's own address belongs there)`,
      );
    if (families.has('ipv6') && !own.some((a) => a.family === 'inet6' && a.scope === 'link'))
      problems.push(
        `--tsa-device ${device} has no IPv6 link-local address to send neighbour solicitations from`,
      );
  }
  return problems;
}

function linkLocalOf(device: string): string {
  const info = ipJson(['-6', 'addr', 'show', 'dev', device, 'scope', 'link'])[0]?.addr_info ?? [];
  return info.find((a) => a.family === 'inet6')!.local;
}

export interface TsaHolding {
  /** Undoes everything (addresses first, then the tables and the sysctls); safe to call twice. */
  release(): void;
}

/**
 * Holds TSAs the way a server behind the direct data path must (docs/agent.md): as addresses of
 * its own (IPv6 `nodad`, and deprecated so that the server never picks one as the source of a
 * connection it opens itself), never answered or announced on the link (the IPFE answers for
 * them), and with `arp_announce=2` so that ARP requests leave from the server's own address.
 * Synchronous, so that it can run from an 'exit' handler. Check holdTsaProblems first.
 */
export function holdTsa(held: HeldTsa[]): TsaHolding {
  const undo: (() => void)[] = [];
  const release = () => {
    for (const step of undo.splice(0).reverse()) {
      try {
        step();
      } catch {
        // already gone
      }
    }
  };
  try {
    const devices = [...new Set(held.map((h) => h.device))];
    const linkLocal = Object.fromEntries(
      devices
        .filter((d) => held.some((h) => h.device === d && h.family === 'ipv6'))
        .map((d) => [d, linkLocalOf(d)]),
    );
    const families = [...new Set(held.map((h) => h.family))];
    undo.push(() => {
      for (const family of families)
        spawnSync('nft', ['delete', 'table', family === 'ipv4' ? 'arp' : 'ip6', TSA_TABLE]);
    });
    execFileSync('nft', ['-f', '-'], { input: tsaRules(held, linkLocal), stdio: 'pipe' });
    for (const device of devices.filter((d) =>
      held.some((h) => h.device === d && h.family === 'ipv4'),
    )) {
      const file = `/proc/sys/net/ipv4/conf/${device}/arp_announce`;
      const before = readFileSync(file, 'utf8').trim();
      undo.push(() => writeFileSync(file, before));
      writeFileSync(file, '2');
    }
    for (const h of held) {
      const ip = (verb: string) =>
        h.family === 'ipv4'
          ? ['addr', verb, `${h.address}/32`, 'dev', h.device]
          : ['-6', 'addr', verb, `${h.address}/128`, 'dev', h.device];
      undo.push(() => execFileSync('ip', ip('del'), { stdio: 'pipe' }));
      const v6 = h.family === 'ipv6' ? ['nodad', 'preferred_lft', '0'] : [];
      execFileSync('ip', [...ip('replace'), ...v6], { stdio: 'pipe' });
    }
  } catch (err) {
    release();
    throw new Error(`--hold-tsa: ${failure(err)}`);
  }
  return { release };
}
