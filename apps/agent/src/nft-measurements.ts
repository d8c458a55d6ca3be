import type { ForwardingPlan, PlannedServer, PlannedTsa } from '@ipfe/engine';
import { ByServer } from './by-server.ts';
import type { Measured } from './data-plane.ts';
import { keyOf } from './direct-reads.ts';
import type { NftSetElement } from './nft.ts';

/**
 * The source product's packet and byte measurements (issue 27 item 4) in the kernel (inet) and
 * direct (netdev) tables: sets with `counter`, one per family, whose elements count what matches
 * them. Keyed by TSA: bytes received (`rx`), SCTP bytes received (`rxSctp`), unexpected TCP and
 * SCTP packets; by TSA and server: bytes sent to the server (`tx`; the kernel path keys the
 * server by the address its packets go to, the direct path by its id in the table, as its
 * `opened` set does). The sets and their elements are declared whatever Options › Accounting
 * says, so that their counts stand still while it is off instead of vanishing; the rules that
 * count are rendered only while it is on. An element added again keeps its counter.
 */
export const MEASURED = {
  rx: { 4: 'rx4', 6: 'rx6' },
  rxSctp: { 4: 'rxsctp4', 6: 'rxsctp6' },
  tx: { 4: 'tx4', 6: 'tx6' },
  unexpectedTcp: { 4: 'utcp4', 6: 'utcp6' },
  unexpectedSctp: { 4: 'usctp4', 6: 'usctp6' },
} as const;

/** The counted sets, to be listed at each read. */
export const MEASURED_SETS: readonly string[] = Object.values(MEASURED).flatMap((byFamily) =>
  Object.values(byFamily),
);

/** Sets that only select (no counter): TSAs whose Target Set carries no TCP, no SCTP. */
const SELECTS = {
  noTcp: { 4: 'notcp4', 6: 'notcp6' },
  noSctp: { 4: 'nosctp4', 6: 'nosctp6' },
  /** Kernel path: the TSA:port pairs it forwards TCP on. */
  tcpPorts: { 4: 'tcpports4', 6: 'tcpports6' },
} as const;

type Family = 4 | 6;
const familyOf = (p: PlannedTsa): Family => (p.family === 6 ? 6 : 4);
const ipxOf = (family: Family) => (family === 6 ? 'ip6' : 'ip');
const addressType = (family: Family) => (family === 6 ? 'ipv6_addr' : 'ipv4_addr');

/** What a renderer adds for the measurements: declarations, elements and rules, in that order. */
export interface MeasurementLines {
  readonly declarations: string[];
  readonly elements: string[];
  readonly rules: string[];
  /** The sets it declares (the direct script removes those of its last run it does not keep). */
  readonly sets: string[];
}

function families(plan: ForwardingPlan): Family[] {
  return ([4, 6] as const).filter((f) => plan.tsas.some((p) => familyOf(p) === f));
}

/** The counted and selecting sets of each family the plan has, and their elements. */
function setsOf(
  t: string,
  plan: ForwardingPlan,
  serverKey: { type: (family: Family) => string; of: (s: PlannedServer) => string },
  selects: readonly (keyof typeof SELECTS)[],
): Omit<MeasurementLines, 'rules'> {
  const declarations: string[] = [];
  const elements: string[] = [];
  const sets: string[] = [];
  for (const family of families(plan)) {
    const type = addressType(family);
    for (const [kind, byFamily] of Object.entries(MEASURED)) {
      const name = byFamily[family];
      const key = kind === 'tx' ? `${type} . ${serverKey.type(family)}` : type;
      declarations.push(`add set ${t} ${name} { type ${key}; counter; }`);
      sets.push(name);
    }
    for (const kind of selects) {
      const name = SELECTS[kind][family];
      const key = kind === 'tcpPorts' ? `${type} . inet_service` : type;
      // Emptied each time: they select by the plan of now.
      declarations.push(`add set ${t} ${name} { type ${key}; }`, `flush set ${t} ${name}`);
      sets.push(name);
    }
  }
  for (const p of plan.tsas) {
    const family = familyOf(p);
    const add = (set: string, keys: readonly string[]) => {
      if (keys.length > 0) elements.push(`add element ${t} ${set} { ${keys.join(', ')} }`);
    };
    for (const kind of ['rx', 'rxSctp', 'unexpectedTcp', 'unexpectedSctp'] as const)
      add(MEASURED[kind][family], [p.tsa]);
    add(
      MEASURED.tx[family],
      p.servers.map((s) => `${p.tsa} . ${serverKey.of(s)}`),
    );
    const carries = (protocol: 'tcp' | 'sctp') => p.protocols.includes(protocol);
    if (selects.includes('noTcp') && !carries('tcp')) add(SELECTS.noTcp[family], [p.tsa]);
    if (selects.includes('noSctp') && !carries('sctp')) add(SELECTS.noSctp[family], [p.tsa]);
    if (selects.includes('tcpPorts') && carries('tcp'))
      add(
        SELECTS.tcpPorts[family],
        p.ports.map((port) => `${p.tsa} . ${port}`),
      );
  }
  return { declarations, elements, sets };
}

/**
 * The rules of the received bytes, SCTP bytes and packets of a protocol a TSA does not carry, in
 * `chain` after `from` (what selects the clients' packets among those to a TSA).
 */
function receivedRules(
  t: string,
  chain: string,
  family: Family,
  options: { noSctp: boolean; from: string },
): string[] {
  const ipx = ipxOf(family);
  const head = `add rule ${t} ${chain} ${options.from}`;
  const rules = [
    `${head}${ipx} daddr @${MEASURED.rx[family]}`,
    `${head}meta l4proto sctp ${ipx} daddr @${MEASURED.rxSctp[family]}`,
    `${head}meta l4proto tcp ${ipx} daddr @${SELECTS.noTcp[family]} ${ipx} daddr @${MEASURED.unexpectedTcp[family]}`,
  ];
  if (options.noSctp)
    rules.push(
      `${head}meta l4proto sctp ${ipx} daddr @${SELECTS.noSctp[family]} ${ipx} daddr @${MEASURED.unexpectedSctp[family]}`,
    );
  return rules;
}

/**
 * The kernel path's measurements, a part of its script of their own: two chains (after
 * conntrack, before the rate limit's throttle and DNAT; and where forwarded packets pass, after
 * it). Received: every packet to a TSA of the plan from its clients, those the rate limit then drops too. Sent to a server: the forwarded packets of a TSA's connections in the
 * client's direction, by where DNAT sent them. Unexpected TCP: a packet conntrack takes for a new
 * connection without a SYN (what the path answers with a reset), or to a TSA whose Target Set
 * carries no TCP. Unexpected SCTP: every SCTP packet, since this path forwards none.
 */
export function kernelMeasurements(
  t: string,
  plan: ForwardingPlan,
  accounting: boolean,
): MeasurementLines {
  const { declarations, elements, sets } = setsOf(
    t,
    plan,
    { type: addressType, of: (s) => s.address },
    ['noTcp', 'tcpPorts'],
  );
  const head = [
    `add chain ${t} measure_in { type filter hook prerouting priority mangle - 20; policy accept; }`,
    `add chain ${t} measure_out { type filter hook forward priority filter; policy accept; }`,
    `flush chain ${t} measure_in`,
    `flush chain ${t} measure_out`,
  ];
  const rules: string[] = [];
  if (accounting)
    for (const family of families(plan)) {
      const ipx = ipxOf(family);
      rules.push(
        // The servers' replies come to the TSA too (the path SNATs to it): the clients' only.
        ...receivedRules(t, 'measure_in', family, {
          noSctp: false,
          from: 'ct direction original ',
        }),
        `add rule ${t} measure_in ${ipx} daddr . tcp dport @${SELECTS.tcpPorts[family]} ct state new tcp flags & (fin | syn | rst | ack) != syn ${ipx} daddr @${MEASURED.unexpectedTcp[family]}`,
        `add rule ${t} measure_in meta l4proto sctp ${ipx} daddr @${MEASURED.unexpectedSctp[family]}`,
        `add rule ${t} measure_out ct direction original ct original ${ipx} daddr . ${ipx} daddr @${MEASURED.tx[family]}`,
      );
    }
  return { declarations: [...head, ...declarations], elements, rules, sets };
}

/** The direct path's chain of the measurements of what arrives (see directMeasurements). */
export const DIRECT_MEASURE_CHAIN = 'measure';

/**
 * The direct path's measurements that need no decision of its own: a chain on the same ingress
 * hook, just before the one that forwards (which steals each packet it sends on). Received: every
 * packet to a TSA of the plan; unexpected: a packet of a protocol its Target Set does not carry.
 * What only the forwarding chains know is counted there (`directCount`).
 */
export function directMeasurements(
  t: string,
  device: string,
  plan: ForwardingPlan,
  serverId: (s: PlannedServer) => number,
  accounting: boolean,
): MeasurementLines {
  const { declarations, elements, sets } = setsOf(
    t,
    plan,
    { type: () => 'mark', of: (s) => String(serverId(s)) },
    ['noTcp', 'noSctp'],
  );
  const head = [
    `add chain ${t} ${DIRECT_MEASURE_CHAIN} { type filter hook ingress device ${device} priority -160; policy accept; }`,
    `flush chain ${t} ${DIRECT_MEASURE_CHAIN}`,
  ];
  const rules = accounting
    ? families(plan).flatMap((family) =>
        receivedRules(t, DIRECT_MEASURE_CHAIN, family, { noSctp: true, from: '' }),
      )
    : [];
  return { declarations: [...head, ...declarations], elements, rules, sets };
}

/**
 * The direct path's counting rules inside its forwarding chains, or none while accounting is off:
 * `tx`, in a server's chain once the packet's mark is the server's id; `unexpectedTcp` and
 * `unexpectedSctp`, just before the rule that resets (TCP) or drops (SCTP) a packet of a flow it
 * has no record of and does not adopt.
 */
export function directCount(
  t: string,
  chain: string,
  p: PlannedTsa,
  what: 'tx' | 'unexpectedTcp' | 'unexpectedSctp',
  accounting: boolean,
): string[] {
  if (!accounting) return [];
  const family = familyOf(p);
  const ipx = ipxOf(family);
  const key = what === 'tx' ? `${ipx} daddr . meta mark` : `${ipx} daddr`;
  return [`add rule ${t} ${chain} ${key} @${MEASURED[what][family]}`];
}

/**
 * The measurements of a plan's TSAs from the listed counted sets (`MEASURED_SETS`); a TSA or
 * server whose element is not listed has none yet. `serverKey` is the key a renderer gave the
 * server (the kernel path: its address; the direct path: its id).
 */
export function measuredOf(
  plan: ForwardingPlan,
  listed: ReadonlyMap<string, NftSetElement[]>,
  serverKey: (s: PlannedServer) => string | number,
): Measured {
  const bySet = new Map<string, Map<string, { packets: number; bytes: number }>>();
  const counterOf = (set: string, key: string) => {
    let counters = bySet.get(set);
    if (!counters) {
      counters = new Map();
      for (const e of listed.get(set) ?? []) if (e.counter) counters.set(keyOf(e.val), e.counter);
      bySet.set(set, counters);
    }
    return counters.get(key);
  };
  const measured: Measured = {
    rxBytes: new Map(),
    rxSctpBytes: new Map(),
    txBytes: new ByServer(),
    unexpectedTcp: new Map(),
    unexpectedSctp: new Map(),
  };
  const put = (to: Map<string, number>, tsa: string, value: number | undefined) => {
    if (value !== undefined) to.set(tsa, value);
  };
  for (const p of plan.tsas) {
    const family = familyOf(p);
    const tsa = keyOf(p.tsa);
    put(measured.rxBytes!, p.tsa, counterOf(MEASURED.rx[family], tsa)?.bytes);
    put(measured.rxSctpBytes!, p.tsa, counterOf(MEASURED.rxSctp[family], tsa)?.bytes);
    put(measured.unexpectedTcp!, p.tsa, counterOf(MEASURED.unexpectedTcp[family], tsa)?.packets);
    put(measured.unexpectedSctp!, p.tsa, counterOf(MEASURED.unexpectedSctp[family], tsa)?.packets);
    for (const s of p.servers) {
      const bytes = counterOf(MEASURED.tx[family], keyOf({ concat: [p.tsa, serverKey(s)] }))?.bytes;
      if (bytes !== undefined) measured.txBytes!.set(p.tsa, s.server, bytes);
    }
  }
  return measured;
}
