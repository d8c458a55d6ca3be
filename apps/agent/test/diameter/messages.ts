import type diameter from 'diameter';

/** The base protocol's application (id 0): CER/CEA, DWR/DWA, DPR/DPA. */
export const BASE = 'Diameter Common Messages';

/**
 * A base-protocol request. The package puts a Session-Id in every request; RFC 6733 allows none in
 * CER, DWR or DPR, so it is taken out.
 */
export function baseRequest(
  connection: diameter.Connection,
  command: 'Capabilities-Exchange' | 'Device-Watchdog' | 'Disconnect-Peer',
  avps: diameter.Avp[],
): diameter.Message {
  const request = connection.createRequest(BASE, command);
  request.body = avps;
  return request;
}

/** The value of a message's first AVP of that name, as text ('' when absent). */
export function avp(message: diameter.Message, name: string): string {
  const found = message.body.find(([n]) => n === name);
  return found === undefined ? '' : String(found[1]);
}

/** Result-Code as the package decodes it: the enum's name. */
export const SUCCESS = 'DIAMETER_SUCCESS';

/** An address as a socket reports it, without the IPv4-mapped prefix of a dual-stack socket. */
export const plainAddress = (address: string | undefined) =>
  (address ?? '').replace(/^::ffff:(?=\d+\.)/, '');
