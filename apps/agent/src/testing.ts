/** Config documents for the agent's unit tests: a valid document, changed as a test needs. */
import { configurationShape, type ConfigDocument, type Configuration } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';

/**
 * IPFEs A1 (192.0.2.11) and A2 (192.0.2.12); Target Set 1 on TSA 192.0.2.100, active A1, with
 * servers 10.0.0.1 and 10.0.0.2; Target Set 2 on TSA 192.0.2.101, active A2, with 10.0.0.3.
 */
export function testDocument(
  revision = 1,
  change: (c: Configuration) => void = () => {},
): ConfigDocument {
  const config = configurationShape.parse({
    options: {
      ipfe: { A1: { address: '192.0.2.11' }, A2: { address: '192.0.2.12' } },
      mateTimeoutMs: 600,
      connectTimeoutS: 2,
      connectTryIntervalS: 1,
    },
    xsiNetworks: [
      { name: 'xsi', cidr: '192.0.2.0/24' },
      { name: 'servers', cidr: '10.0.0.0/16' },
    ],
    appServers: withPortSlices(
      ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((address, i) => ({
        name: `as${i + 1}`,
        addresses: [address],
      })),
    ),
    targetSets: [
      {
        number: 1,
        family: 'ipv4',
        algorithm: 'hash',
        primary: { address: '192.0.2.100', activeIpfe: 'A1' },
        servers: [{ address: '10.0.0.1' }, { address: '10.0.0.2' }],
      },
      {
        number: 2,
        family: 'ipv4',
        algorithm: 'hash',
        primary: { address: '192.0.2.101', activeIpfe: 'A2' },
        servers: [{ address: '10.0.0.3' }],
      },
    ],
  });
  change(config);
  return buildDocument(revision, config);
}

/** The i-th test server's 512 ports of the Initiator Port Range, from 16384: 16384–16895, 16896–17407, … */
export const portSlice = (i: number) => ({ start: 16384 + 512 * i, end: 16895 + 512 * i });

/** Application servers, each with its own slice of the Initiator Port Range, in order. */
export function withPortSlices<T extends object>(servers: readonly T[]) {
  return servers.map((server, i) => ({ ...server, initiatorPortRange: portSlice(i) }));
}
