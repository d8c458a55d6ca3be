import { describe, expect, it } from 'vitest';
import { configurationShape, type Configuration } from '@ipfe/schema';
import { serverNameOf, serverOffers, withOfferedServers } from './server-offer.ts';
import type { Origin } from './shared.ts';

describe('serverNameOf', () => {
  it.each([
    ['127.1.1.9', '127.1.1.9'],
    ['2001:db8::9', '2001-db8--9'],
    ['::1', '0--1'],
    ['fd00::', 'fd00--0'],
  ])('names the server of %s %s, a hostname-like name', (address, name) => {
    expect(serverNameOf(address)).toBe(name);
    expect(name).toMatch(/^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/);
  });
});

/** A configuration whose Target Sets list these rows; one line of the file per row. */
function withRows(rows: { address: string; secondaryAddress?: string }[][]): {
  config: Configuration;
  origins: Map<string, Origin>;
} {
  const config = configurationShape.parse({
    xsiNetworks: [
      { name: 'xsi4', cidr: '127.1.0.0/16' },
      { name: 'xsi4b', cidr: '127.2.0.0/16' },
      { name: 'xsi6', cidr: '2001:db8::/64' },
    ],
    appServers: [
      { name: 'mp1', addresses: ['127.1.1.1'], initiatorPortRange: { start: 16384, end: 16895 } },
    ],
    targetSets: rows.map((servers, i) => ({
      number: i + 1,
      family: servers[0]!.address.includes(':') ? 'ipv6' : 'ipv4',
      primary: { address: `127.1.0.${100 + i}` },
      servers,
    })),
  });
  const origins = new Map<string, Origin>();
  let line = 1;
  rows.forEach((servers, i) => {
    const first = line + 1;
    line += servers.length;
    origins.set(`targetSets.${i}`, {
      at: (field) => {
        const row = /^servers\.(\d+)\.(\w+)$/.exec(field);
        return row
          ? { line: first + Number(row[1]), column: row[2] === 'address' ? '4' : '6' }
          : { line: 1, column: null };
      },
    });
  });
  return { config, origins };
}

describe('serverOffers', () => {
  it('offers a server per unknown address, named after it, on its XSI network, once however often it is listed', () => {
    const { config, origins } = withRows([
      [{ address: '127.1.1.1' }, { address: '127.1.1.9' }],
      [{ address: '127.1.1.9' }, { address: '2001:db8::9' }],
    ]);
    const { offers, offered, homeless } = serverOffers(config, origins);
    expect(offers).toEqual([
      { name: '127.1.1.9', addresses: ['127.1.1.9'], xsiNetworks: ['xsi4'], lines: [3, 4] },
      { name: '2001-db8--9', addresses: ['2001:db8::9'], xsiNetworks: ['xsi6'], lines: [5] },
    ]);
    expect(offered.map((c) => `${c.line}:${c.column} ${c.address}`)).toEqual([
      '3:4 127.1.1.9',
      '4:4 127.1.1.9',
      '5:4 2001:db8::9',
    ]);
    expect(homeless).toEqual([]);
  });

  it('makes an unknown secondary address the same new server’s second address', () => {
    const { config, origins } = withRows([
      [{ address: '127.1.1.9', secondaryAddress: '127.2.1.9' }],
    ]);
    expect(serverOffers(config, origins).offers).toEqual([
      {
        name: '127.1.1.9',
        addresses: ['127.1.1.9', '127.2.1.9'],
        xsiNetworks: ['xsi4', 'xsi4b'],
        lines: [2],
      },
    ]);
  });

  it('cannot offer an address no XSI network holds: it is a problem of its own', () => {
    const { config, origins } = withRows([
      [{ address: '127.9.9.9' }, { address: '127.1.1.8', secondaryAddress: '127.3.0.8' }],
    ]);
    const { offers, homeless } = serverOffers(config, origins);
    expect(homeless).toEqual([
      { address: '127.9.9.9', line: 2, column: '4' },
      { address: '127.3.0.8', line: 3, column: '6' },
    ]);
    expect(offers).toEqual([
      { name: '127.1.1.8', addresses: ['127.1.1.8'], xsiNetworks: ['xsi4'], lines: [3] },
    ]);
  });

  it('offers nothing when every address is a server here', () => {
    const { config, origins } = withRows([[{ address: '127.1.1.1' }]]);
    expect(serverOffers(config, origins)).toEqual({ offers: [], offered: [], homeless: [] });
  });

  it('adds the offered servers, the running ones kept as they are', () => {
    const { config, origins } = withRows([[{ address: '127.1.1.9' }]]);
    const taken = withOfferedServers(config, serverOffers(config, origins).offers);
    expect(taken.appServers.map((s) => s.name)).toEqual(['mp1', '127.1.1.9']);
    expect(taken.appServers[1]).toEqual({ name: '127.1.1.9', addresses: ['127.1.1.9'] });
    expect(config.appServers).toHaveLength(1);
  });
});
