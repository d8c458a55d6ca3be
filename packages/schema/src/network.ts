import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import {
  addressOrCidr,
  cidr,
  hostName,
  intInRange,
  ipAddress,
  simpleName,
  typeError,
} from './fields.ts';
import {
  APP_SERVER_ADDRESSES,
  APP_SERVER_NAME_LENGTH,
  INITIATOR_PORTS,
  NAME_LENGTH,
  PEER_NODE_GROUP_MEMBERS,
} from './limits.ts';

/** Network › XSI Networks */
export const xsiNetworkSchema = z.strictObject({
  name: simpleName('XSI network name', NAME_LENGTH),
  cidr: cidr('Network'),
});

/**
 * Whether an address inside an IPv4 network is that network's own address or its broadcast
 * address, neither of which is a host address; null for a host address, an IPv6 network, and
 * /31 and /32 networks (RFC 3021: every address of a /31 is a host).
 */
export function nonHostRole(cidrText: string, address: string): 'network' | 'broadcast' | null {
  if (!ipaddr.IPv4.isValidFourPartDecimal(address) || !cidrText.includes('.')) return null;
  const prefix = Number(cidrText.slice(cidrText.indexOf('/') + 1));
  if (!(prefix <= 30)) return null;
  try {
    if (ipaddr.IPv4.networkAddressFromCIDR(cidrText).toString() === address) return 'network';
    if (ipaddr.IPv4.broadcastAddressFromCIDR(cidrText).toString() === address) return 'broadcast';
  } catch {
    // Not a CIDR: the schema reports it.
  }
  return null;
}

/** Network › Application Servers, as an operator types it: the port range is never typed. */
export const appServerInputSchema = z.strictObject({
  name: hostName('Application server name', APP_SERVER_NAME_LENGTH),
  addresses: z
    .array(ipAddress('Address'), {
      error: typeError('Addresses', 'Addresses must be a list of IP addresses'),
    })
    .min(APP_SERVER_ADDRESSES.min, { error: 'An application server needs an address' })
    .max(APP_SERVER_ADDRESSES.max, {
      error: 'At most 2 addresses: a primary and a secondary (SCTP multihoming)',
    }),
});

/** One of the 64 slices of 512 ports between 16384 and 49151. */
export const portRangeSchema = z
  .strictObject({
    start: intInRange('Port range start', { min: INITIATOR_PORTS.start, max: INITIATOR_PORTS.end }),
    end: intInRange('Port range end', { min: INITIATOR_PORTS.start, max: INITIATOR_PORTS.end }),
  })
  .superRefine((range, ctx) => {
    const inBounds = (port: number) => port >= INITIATOR_PORTS.start && port <= INITIATOR_PORTS.end;
    if (!inBounds(range.start) || !inBounds(range.end)) return; // already reported per field
    const aligned = (range.start - INITIATOR_PORTS.start) % INITIATOR_PORTS.sliceSize === 0;
    if (!aligned || range.end !== range.start + INITIATOR_PORTS.sliceSize - 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `An Initiator Port Range is one slice of ${INITIATOR_PORTS.sliceSize} ports starting at ${INITIATOR_PORTS.start} + k × ${INITIATOR_PORTS.sliceSize}`,
      });
    }
  });

/** An application server as stored: with the Initiator Port Range the system allocated to it. */
export const appServerSchema = appServerInputSchema.extend({
  initiatorPortRange: portRangeSchema,
});

/** Network › Peer Node Groups */
export const peerNodeGroupSchema = z.strictObject({
  name: simpleName('Peer node group name', NAME_LENGTH),
  members: z
    .array(addressOrCidr('Member'), {
      error: typeError('Members', 'Members must be a list of addresses or CIDRs'),
    })
    .min(PEER_NODE_GROUP_MEMBERS.min, { error: 'A peer node group needs at least one member' })
    .max(PEER_NODE_GROUP_MEMBERS.max, {
      error: `At most ${PEER_NODE_GROUP_MEMBERS.max} members`,
    }),
});

export type XsiNetwork = z.output<typeof xsiNetworkSchema>;
export type AppServerInput = z.input<typeof appServerInputSchema>;
export type AppServer = z.output<typeof appServerSchema>;
export type PortRange = z.output<typeof portRangeSchema>;
export type PeerNodeGroup = z.output<typeof peerNodeGroupSchema>;
