import type { ForwardedProtocol } from '@ipfe/schema';

/** The transport protocols of a Target Set (`both` is the two of them). */
export function protocolsOf(protocols: 'tcp' | 'sctp' | 'both'): ForwardedProtocol[] {
  return protocols === 'both' ? ['tcp', 'sctp'] : [protocols];
}

/**
 * The protocols of a Target Set that this node's data path does not forward: the status lists
 * them, and a Target Set none of whose protocols is forwarded raises 5002. One rule for both.
 */
export function notForwarded(
  protocols: 'tcp' | 'sctp' | 'both',
  forwards: readonly ForwardedProtocol[],
): ForwardedProtocol[] {
  return protocolsOf(protocols).filter((p) => !forwards.includes(p));
}
