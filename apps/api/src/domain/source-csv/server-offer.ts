import { cidrContains, type Configuration } from '@ipfe/schema';
import type { Origin, ServerOffer } from './shared.ts';

/**
 * The source product's bulk file names its servers by address only: the application servers and
 * XSI networks are not in it. An address of an IP list that no application server here has is
 * offered as a new server, named after the address, when an XSI network here holds it; else it
 * cannot be created, and the reader says so.
 */

/** An application server's name made of its address: hostname-like, so ':' becomes '-'. */
export function serverNameOf(address: string): string {
  if (!address.includes(':')) return address;
  const name = address.toLowerCase().replaceAll(':', '-');
  return `${name.startsWith('-') ? '0' : ''}${name}${name.endsWith('-') ? '0' : ''}`;
}

/** A cell of the file that names an address no application server here has. */
export interface UnknownCell {
  address: string;
  line: number;
  column: string | null;
}

export interface ServerOffers {
  /** The servers that can be created: each address on an XSI network here. */
  offers: ServerOffer[];
  /** Every cell that names an offered address (said to the operator until they accept). */
  offered: (UnknownCell & { server: string })[];
  /** The cells whose address no XSI network here holds: a problem, whatever the operator says. */
  homeless: UnknownCell[];
}

/**
 * The servers the Target Sets' IP lists need and `config` lacks: a row's unknown address with its
 * unknown secondary address (the same server's other address, for SCTP multihoming) is one server.
 */
export function serverOffers(config: Configuration, origins: Map<string, Origin>): ServerOffers {
  const known = new Set(config.appServers.flatMap((s) => s.addresses));
  const networkOf = (address: string) =>
    config.xsiNetworks.find((n) => cidrContains(n.cidr, address))?.name ?? null;
  const byAddress = new Map<string, ServerOffer>();
  const owner = new Map<string, ServerOffer>();
  const offered: ServerOffers['offered'] = [];
  const homeless: UnknownCell[] = [];
  const seenHomeless = new Set<string>();
  config.targetSets.forEach((ts, i) => {
    const origin = origins.get(`targetSets.${i}`);
    ts.servers.forEach((row, r) => {
      if (known.has(row.address)) return;
      const cell = (field: string, address: string): UnknownCell => {
        const at = origin?.at(`servers.${r}.${field}`) ?? { line: 0, column: null };
        return { address, line: at.line, column: at.column };
      };
      const primary = networkOf(row.address);
      if (!primary) {
        const key = `${row.address}@${origin?.at(`servers.${r}.address`).line}`;
        if (!seenHomeless.has(key)) homeless.push(cell('address', row.address));
        seenHomeless.add(key);
        return;
      }
      let server = owner.get(row.address);
      if (!server) {
        server = {
          name: serverNameOf(row.address),
          addresses: [row.address],
          xsiNetworks: [primary],
          lines: [],
        };
        byAddress.set(row.address, server);
        owner.set(row.address, server);
      }
      const at = cell('address', row.address);
      if (!server.lines.includes(at.line)) server.lines.push(at.line);
      offered.push({ ...at, server: server.name });
      const second = row.secondaryAddress;
      if (second === null || known.has(second) || second === row.address) return;
      if (owner.get(second) === server) {
        offered.push({ ...cell('secondaryAddress', second), server: server.name });
        return;
      }
      // Another new server's address, or a third one: the rules between entities say so.
      if (owner.has(second) || server.addresses.length >= 2) return;
      const network = networkOf(second);
      if (!network) {
        homeless.push(cell('secondaryAddress', second));
        return;
      }
      server.addresses.push(second);
      server.xsiNetworks.push(network);
      owner.set(second, server);
      offered.push({ ...cell('secondaryAddress', second), server: server.name });
    });
  });
  return { offers: [...byAddress.values()], offered, homeless };
}

/** The offer taken: the new servers (without a port range yet) added to the configuration. */
export function withOfferedServers(config: Configuration, offers: ServerOffer[]): Configuration {
  const added = offers.map((o) => ({ name: o.name, addresses: [...o.addresses] }));
  return {
    ...config,
    appServers: [...config.appServers, ...(added as Configuration['appServers'])],
  };
}
