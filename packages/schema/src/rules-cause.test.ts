import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configurationShape } from './configuration.ts';
import { portRangeOfSlice } from './derive.ts';
import { errorsOf, USERS_PLACEHOLDER } from './issues.ts';
import { checkConfiguration } from './rules.ts';

type ConfigInput = z.input<typeof configurationShape>;

/** IPFE A1, XSI network lab 10.0.0.0/24, servers mp1 and mp2, Target Set 1 on 10.0.0.100. */
function config(parts: Partial<ConfigInput> = {}): ConfigInput {
  return {
    options: { ipfe: { A1: { address: '10.0.0.201' } } },
    xsiNetworks: [{ name: 'lab', cidr: '10.0.0.0/24' }],
    appServers: [
      { name: 'mp1', addresses: ['10.0.0.11'], initiatorPortRange: portRangeOfSlice(0) },
      { name: 'mp2', addresses: ['10.0.0.12'], initiatorPortRange: portRangeOfSlice(1) },
    ],
    targetSets: [
      {
        number: 1,
        family: 'ipv4',
        primary: { address: '10.0.0.100' },
        servers: [{ address: '10.0.0.11' }, { address: '10.0.0.12' }],
      },
    ],
    ...parts,
  };
}

const errors = (input: ConfigInput) =>
  errorsOf(checkConfiguration(configurationShape.parse(input)));

describe('a TSA or application server address must be a host address of its XSI network', () => {
  it.each([
    ['10.0.0.0', 'network'],
    ['10.0.0.255', 'broadcast'],
  ])('%s, the %s address of 10.0.0.0/24, is not a TSA', (address, role) => {
    const input = config();
    input.targetSets![0]!.primary.address = address;
    expect(errors(input)).toEqual([
      {
        path: 'targetSets.0.primary.address',
        message: `${address} is the ${role} address of XSI network lab (10.0.0.0/24), not a host address`,
        severity: 'error',
        cause: 'xsiNetworks',
        causeMessage: `${address} would be the ${role} address of XSI network lab (10.0.0.0/24): it is an address of ${USERS_PLACEHOLDER}`,
      },
    ]);
  });

  it('nor an application server address', () => {
    const input = config();
    input.appServers![1]!.addresses = ['10.0.0.12', '10.0.0.0'];
    expect(errors(input).map((i) => [i.path, i.message])).toEqual([
      [
        'appServers.1.addresses.1',
        '10.0.0.0 is the network address of XSI network lab (10.0.0.0/24), not a host address',
      ],
    ]);
  });

  it('on a /31 network both addresses are hosts', () => {
    const input = config({
      xsiNetworks: [
        { name: 'lab', cidr: '10.0.0.0/24' },
        { name: 'p2p', cidr: '10.0.1.0/31' },
      ],
    });
    input.targetSets![0]!.primary.address = '10.0.1.0';
    expect(errors(input)).toEqual([]);
  });
});

describe('the wording of an issue for the entity that causes it', () => {
  it('Least Load without heartbeat monitoring: for Options, which Target Set uses Least Load', () => {
    const input = config({
      options: { ipfe: { A1: { address: '10.0.0.201' } }, monitorProtocol: 'disabled' },
    });
    expect(errors(input)).toEqual([
      expect.objectContaining({
        path: 'targetSets.0.algorithm',
        cause: 'options.monitorProtocol',
        causeMessage: `Only Heartbeat monitoring supports Least Load, the algorithm of ${USERS_PLACEHOLDER}`,
      }),
    ]);
  });

  it('an IP List row that is no server address: for the server that lost it, that it is in use', () => {
    const input = config();
    input.appServers![0]!.addresses = ['10.0.0.21'];
    expect(errors(input)).toEqual([
      expect.objectContaining({
        path: 'targetSets.0.servers.0.address',
        message: '10.0.0.11 is not an application server address',
        cause: 'appServers',
        causeMessage: `10.0.0.11 is in use by ${USERS_PLACEHOLDER}`,
      }),
    ]);
  });

  it('a TSA off every network: for the network, that it must stay on one', () => {
    const input = config();
    input.targetSets![0]!.primary.address = '10.0.9.100';
    expect(errors(input)).toEqual([
      expect.objectContaining({
        path: 'targetSets.0.primary.address',
        cause: 'xsiNetworks',
        causeMessage: `10.0.9.100 must stay on an XSI network: it is an address of ${USERS_PLACEHOLDER}`,
      }),
    ]);
  });

  it('a TSA that is an IPFE address: for the IPFE address, that the Target Set uses it', () => {
    const input = config({ options: { ipfe: { A1: { address: '10.0.0.100' } } } });
    expect(errors(input)).toEqual([
      expect.objectContaining({
        path: 'targetSets.0.primary.address',
        cause: 'options.ipfe.A1.address',
        causeMessage: `10.0.0.100 is already used by ${USERS_PLACEHOLDER}`,
      }),
    ]);
  });
});
