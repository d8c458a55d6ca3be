import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configurationSchema, configurationShape } from './configuration.ts';
import { portRangeOfSlice } from './derive.ts';
import { errorsOf, warningsOf, type ConfigIssue } from './issues.ts';
import { APP_SERVERS_MAX, PEER_NODE_GROUPS_MAX, XSI_NETWORKS_MAX } from './limits.ts';
import type { AppServer } from './network.ts';
import { checkConfiguration, checkTargetSetIn } from './rules.ts';
import type { TargetSetInput } from './target-set.ts';
import { fieldErrorsOf } from './zod-issues.ts';

type ConfigInput = z.input<typeof configurationShape>;

function appServer(name: string, slice: number, ...addresses: string[]): AppServer {
  return { name, addresses, initiatorPortRange: portRangeOfSlice(slice) };
}

/** A Target Set as typed on Insert; the family follows the primary address. */
function targetSet(
  number: number,
  primary: string,
  servers: string[],
  extra: Partial<TargetSetInput> = {},
): TargetSetInput {
  return {
    number,
    family: primary.includes(':') ? 'ipv6' : 'ipv4',
    primary: { address: primary },
    servers: servers.map((address) => ({ address })),
    ...extra,
  };
}

/**
 * A valid configuration: IPFEs A1 and A2, one XSI network per family, three application servers
 * (mp1 and mp2 dual-stack, mp3 with two IPv4 addresses) and Target Set 1 over mp1 and mp2.
 */
function baseConfig() {
  return {
    options: { ipfe: { A1: { address: '10.0.0.201' }, A2: { address: '10.0.0.202' } } },
    xsiNetworks: [
      { name: 'xsi-v4', cidr: '10.0.0.0/24' },
      { name: 'xsi-v6', cidr: '2001:db8::/64' },
    ],
    appServers: [
      appServer('mp1', 0, '10.0.0.11', '2001:db8::11'),
      appServer('mp2', 1, '10.0.0.12', '2001:db8::12'),
      appServer('mp3', 2, '10.0.0.13', '10.0.0.23'),
    ],
    peerNodeGroups: [{ name: 'peers-east', members: ['10.1.0.0/16'] }],
    targetSets: [targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12'])],
  } satisfies ConfigInput;
}

/** The base configuration with some of its top-level parts replaced. */
function configWith(parts: Partial<ConfigInput>): ConfigInput {
  return { ...baseConfig(), ...parts };
}

/** The issues, without the wording for their cause's side (rules-cause.test.ts checks that). */
function issuesOf(input: ConfigInput): ConfigIssue[] {
  return checkConfiguration(configurationShape.parse(input)).map(
    ({ causeMessage: _, ...issue }) => issue,
  );
}

const error = (path: string, message: string, cause?: string): ConfigIssue => ({
  path,
  message,
  severity: 'error',
  ...(cause ? { cause } : {}),
});
const warning = (path: string, message: string): ConfigIssue => ({
  path,
  message,
  severity: 'warning',
});

const NOT_ON_XSI = 'must be on the XSI network';

describe('the base configuration', () => {
  it('has no issues', () => {
    expect(issuesOf(baseConfig())).toEqual([]);
  });

  it('an empty configuration has no issues', () => {
    expect(issuesOf({})).toEqual([]);
  });
});

describe('configurationSchema', () => {
  it('refuses a configuration with a rule error, at the field’s path', () => {
    const input = configWith({ targetSets: [targetSet(1, '10.9.0.100', ['10.0.0.11'])] });
    const result = configurationSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(fieldErrorsOf(result.error!)).toEqual([
      { path: 'targetSets.0.primary.address', message: `10.9.0.100 ${NOT_ON_XSI}` },
    ]);
  });

  it('accepts a configuration whose only findings are warnings', () => {
    const input = configWith({
      targetSets: [targetSet(1, '10.0.0.100', ['10.0.0.11'], { deleteAgeSeconds: 599 })],
    });
    expect(warningsOf(issuesOf(input))).toHaveLength(1);
    expect(configurationSchema.safeParse(input).success).toBe(true);
  });

  it('reports field errors and rule errors of one configuration together', () => {
    const input = configWith({
      targetSets: [targetSet(1, '10.9.0.100', ['10.0.0.11'], { deleteAgeSeconds: 9 })],
    });
    const result = configurationSchema.safeParse(input);
    expect(fieldErrorsOf(result.error!)).toContainEqual({
      path: 'targetSets.0.deleteAgeSeconds',
      message: 'Delete Age (s) must be a whole number from 10 to 3110400',
    });
  });
});

describe('uniqueness', () => {
  it('Target Set numbers: the second Target Set with a number is refused', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12']),
        targetSet(1, '10.0.0.110', ['10.0.0.13']),
      ],
    });
    expect(issuesOf(input)).toEqual([error('targetSets.1.number', 'Target Set 1 already exists')]);
    input.targetSets![1]!.number = 2;
    expect(issuesOf(input)).toEqual([]);
  });

  it('XSI network names, ignoring case', () => {
    const input = configWith({
      xsiNetworks: [...baseConfig().xsiNetworks, { name: 'XSI-V4', cidr: '10.0.1.0/24' }],
    });
    expect(issuesOf(input)).toEqual([
      error('xsiNetworks.2.name', 'An XSI network named XSI-V4 already exists'),
    ]);
    input.xsiNetworks![2]!.name = 'xsi-v4b';
    expect(issuesOf(input)).toEqual([]);
  });

  it('application server names, ignoring case', () => {
    const input = configWith({
      appServers: [...baseConfig().appServers, appServer('MP1', 3, '10.0.0.14')],
    });
    expect(issuesOf(input)).toEqual([
      error('appServers.3.name', 'An application server named MP1 already exists'),
    ]);
    input.appServers![3]!.name = 'mp4';
    expect(issuesOf(input)).toEqual([]);
  });

  it('peer node group names, ignoring case, and members within a group', () => {
    const input = configWith({
      peerNodeGroups: [
        { name: 'peers-east', members: ['10.1.0.0/16'] },
        { name: 'Peers-East', members: ['10.2.0.5', '10.2.0.6', '10.2.0.5'] },
      ],
    });
    expect(issuesOf(input)).toEqual([
      error('peerNodeGroups.1.members.2', '10.2.0.5 is listed twice'),
      error('peerNodeGroups.1.name', 'A peer node group named Peers-East already exists'),
    ]);
    const fixed = configWith({
      peerNodeGroups: [
        { name: 'peers-east', members: ['10.1.0.0/16'] },
        { name: 'peers-west', members: ['10.2.0.5', '10.2.0.6'] },
      ],
    });
    expect(issuesOf(fixed)).toEqual([]);
  });

  it('application server addresses across servers, whatever the spelling', () => {
    const input = configWith({
      appServers: [...baseConfig().appServers, appServer('mp4', 3, '2001:0db8:0::0011')],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'appServers.3.addresses.0',
        '2001:db8::11 is already an address of application server mp1',
      ),
    ]);
    input.appServers![3]!.addresses = ['2001:db8::14'];
    expect(issuesOf(input)).toEqual([]);
  });

  it('application server addresses within one server', () => {
    const input = configWith({
      appServers: [...baseConfig().appServers, appServer('mp4', 3, '10.0.0.14', '10.0.0.14')],
    });
    expect(issuesOf(input)).toEqual([
      error('appServers.3.addresses.1', '10.0.0.14 is listed twice'),
    ]);
  });

  it('Initiator Port Ranges: one slice per application server', () => {
    const input = configWith({
      appServers: [...baseConfig().appServers, appServer('mp4', 0, '10.0.0.14')],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'appServers.3.initiatorPortRange',
        'Initiator Port Range is already allocated to mp1: leave it out and a free one is allocated',
      ),
    ]);
  });

  it('IPFE addresses', () => {
    const input = configWith({
      options: { ipfe: { A1: { address: '10.0.0.201' }, A2: { address: '10.0.0.201' } } },
    });
    expect(issuesOf(input)).toEqual([
      error('options.ipfe.A2.address', '10.0.0.201 is already the address of IPFE A1'),
    ]);
  });

  it('IPFE addresses must be unicast', () => {
    const input = configWith({
      options: { ipfe: { A1: { address: '10.0.0.201' }, A2: { address: '224.0.0.1' } } },
    });
    expect(issuesOf(input)).toEqual([
      error('options.ipfe.A2.address', '224.0.0.1 is not a unicast address'),
    ]);
  });

  it('a TSA is used by one Target Set only, and both Target Sets are told', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12']),
        targetSet(2, '10.0.0.100', ['10.0.0.13']),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error('targetSets.0.primary.address', '10.0.0.100 is already used by Target Set 2'),
      error('targetSets.1.primary.address', '10.0.0.100 is already used by Target Set 1'),
    ]);
  });

  it('a TSA may not be another Target Set’s secondary address either', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12']),
        targetSet(2, '10.0.0.110', [], {
          secondary: { address: '10.0.0.100', activeIpfe: 'A2' },
          servers: [{ address: '10.0.0.13', secondaryAddress: '10.0.0.23' }],
        }),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error('targetSets.0.primary.address', '10.0.0.100 is already used by Target Set 2'),
      error('targetSets.1.secondary.address', '10.0.0.100 is already used by Target Set 1'),
    ]);
    input.targetSets![1]!.secondary!.address = '10.0.0.111';
    expect(issuesOf(input)).toEqual([]);
  });

  it('a TSA is not an application server address', () => {
    const input = configWith({ targetSets: [targetSet(1, '10.0.0.13', ['10.0.0.11'])] });
    expect(issuesOf(input)).toEqual([
      error('appServers.2.addresses.0', '10.0.0.13 is already the Target Set 1 primary address'),
      error(
        'targetSets.0.primary.address',
        '10.0.0.13 is an address of application server mp3',
        'appServers',
      ),
    ]);
  });

  it('a TSA is not an IPFE address', () => {
    const input = configWith({ targetSets: [targetSet(1, '10.0.0.202', ['10.0.0.11'])] });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.primary.address',
        '10.0.0.202 is the address of IPFE A2',
        'options.ipfe.A2.address',
      ),
    ]);
  });

  it('the secondary address differs from the primary address', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.110', [], {
          secondary: { address: '10.0.0.110', activeIpfe: 'A2' },
          servers: [{ address: '10.0.0.13', secondaryAddress: '10.0.0.23' }],
        }),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.secondary.address',
        'The secondary address must differ from the primary address',
      ),
    ]);
  });

  it('IP list rows within one Target Set', () => {
    const input = configWith({
      targetSets: [targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12', '10.0.0.11'])],
    });
    expect(issuesOf(input)).toEqual([
      error('targetSets.0.servers.2.address', '10.0.0.11 is listed twice'),
    ]);
  });
});

describe('XSI networks', () => {
  it('the primary TSA must be on an XSI network', () => {
    const input = configWith({ targetSets: [targetSet(1, '10.0.1.100', ['10.0.0.11'])] });
    expect(issuesOf(input)).toEqual([
      error('targetSets.0.primary.address', `10.0.1.100 ${NOT_ON_XSI}`, 'xsiNetworks'),
    ]);
  });

  it('the secondary TSA must be on an XSI network', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.110', [], {
          secondary: { address: '2001:db8:1::110', activeIpfe: 'A2' },
          servers: [{ address: '10.0.0.11', secondaryAddress: '2001:db8::11' }],
        }),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error('targetSets.0.secondary.address', `2001:db8:1::110 ${NOT_ON_XSI}`, 'xsiNetworks'),
    ]);
  });

  it('an IPv6 TSA on the IPv6 XSI network is fine', () => {
    const input = configWith({
      targetSets: [targetSet(1, '2001:db8::100', ['2001:db8::11', '2001:db8::12'])],
    });
    expect(issuesOf(input)).toEqual([]);
  });

  it('every application server address must be on an XSI network', () => {
    const input = configWith({
      appServers: [...baseConfig().appServers, appServer('mp4', 3, '10.0.0.14', '10.0.1.14')],
    });
    expect(issuesOf(input)).toEqual([
      error('appServers.3.addresses.1', `10.0.1.14 ${NOT_ON_XSI}`, 'xsiNetworks'),
    ]);
  });

  it('removing the network that addresses use puts every user in error', () => {
    const input = configWith({ xsiNetworks: [{ name: 'xsi-v6', cidr: '2001:db8::/64' }] });
    const paths = issuesOf(input).map((i) => `${i.path}: ${i.message}`);
    expect(paths).toEqual([
      `appServers.0.addresses.0: 10.0.0.11 ${NOT_ON_XSI}`,
      `appServers.1.addresses.0: 10.0.0.12 ${NOT_ON_XSI}`,
      `appServers.2.addresses.0: 10.0.0.13 ${NOT_ON_XSI}`,
      `appServers.2.addresses.1: 10.0.0.23 ${NOT_ON_XSI}`,
      `targetSets.0.primary.address: 10.0.0.100 ${NOT_ON_XSI}`,
    ]);
  });

  it('networks may not overlap', () => {
    const input = configWith({
      xsiNetworks: [...baseConfig().xsiNetworks, { name: 'xsi-v4-upper', cidr: '10.0.0.128/25' }],
    });
    expect(issuesOf(input)).toEqual([
      error('xsiNetworks.2.cidr', '10.0.0.128/25 overlaps XSI network xsi-v4 (10.0.0.0/24)'),
    ]);
  });

  it('adjacent networks, and networks of different families, do not overlap', () => {
    const input = configWith({
      xsiNetworks: [
        ...baseConfig().xsiNetworks,
        { name: 'xsi-v4-next', cidr: '10.0.1.0/24' },
        { name: 'xsi-v6-next', cidr: '2001:db8:0:1::/64' },
      ],
    });
    expect(issuesOf(input)).toEqual([]);
  });

  it(`at most ${XSI_NETWORKS_MAX} networks`, () => {
    const nets = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `xsi-${i}`, cidr: `10.0.${i}.0/24` }));
    const cfg = (n: number) => ({ xsiNetworks: nets(n) });
    expect(issuesOf(cfg(XSI_NETWORKS_MAX))).toEqual([]);
    expect(issuesOf(cfg(XSI_NETWORKS_MAX + 1))).toEqual([
      error(`xsiNetworks.${XSI_NETWORKS_MAX}.name`, 'At most 16 XSI networks'),
    ]);
  });
});

describe('limits on counts', () => {
  it(`at most ${APP_SERVERS_MAX} application servers`, () => {
    // the 65th server can only get a slice that another server already holds
    const servers = Array.from({ length: APP_SERVERS_MAX + 1 }, (_, i) =>
      appServer(`mp${i}`, i % APP_SERVERS_MAX, `10.0.0.${i + 1}`),
    );
    const xsiNetworks = baseConfig().xsiNetworks;
    expect(issuesOf({ xsiNetworks, appServers: servers.slice(0, -1) })).toEqual([]);
    expect(issuesOf({ xsiNetworks, appServers: servers })).toEqual([
      error(
        `appServers.${APP_SERVERS_MAX}.name`,
        'At most 64 application servers (one Initiator Port Range each)',
      ),
      error(
        `appServers.${APP_SERVERS_MAX}.initiatorPortRange`,
        'Initiator Port Range is already allocated to mp0: leave it out and a free one is allocated',
      ),
    ]);
  });

  it(`at most ${PEER_NODE_GROUPS_MAX} peer node groups`, () => {
    const groups = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `group-${i}`, members: [`10.2.${i}.0/24`] }));
    expect(issuesOf({ peerNodeGroups: groups(PEER_NODE_GROUPS_MAX) })).toEqual([]);
    expect(issuesOf({ peerNodeGroups: groups(PEER_NODE_GROUPS_MAX + 1) })).toEqual([
      error(`peerNodeGroups.${PEER_NODE_GROUPS_MAX}.name`, 'At most 64 peer node groups'),
    ]);
  });
});

describe('address family', () => {
  it('the primary address has the Target Set’s family', () => {
    const input = configWith({
      targetSets: [targetSet(1, '2001:db8::100', ['10.0.0.11'], { family: 'ipv4' })],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.primary.address',
        '2001:db8::100 is not an IPv4 address (this is an IPv4 Target Set)',
      ),
    ]);
  });

  it('every IP list address has the Target Set’s family', () => {
    const input = configWith({
      targetSets: [targetSet(1, '10.0.0.100', ['10.0.0.11', '2001:db8::12'])],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.servers.1.address',
        '2001:db8::12 is not an IPv4 address, like the Target Set address',
      ),
    ]);
  });

  it('every secondary IP list address has the secondary TSA’s family', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.110', [], {
          secondary: { address: '2001:db8::110', activeIpfe: 'A2' },
          servers: [{ address: '10.0.0.13', secondaryAddress: '10.0.0.23' }],
        }),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.servers.0.secondaryAddress',
        '10.0.0.23 is not an IPv6 address, like the secondary Target Set address',
      ),
    ]);
  });
});

describe('Active IPFE', () => {
  const configure = 'Configure the IPFE address under IPFE › Configuration › Options';

  it('the primary Active IPFE must be a configured slot', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', ['10.0.0.11'], {
          primary: { address: '10.0.0.100', activeIpfe: 'B1' },
        }),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.primary.activeIpfe',
        `IPFE B1 is not configured. ${configure}`,
        'options.ipfe.B1.address',
      ),
    ]);
  });

  it('so must the secondary Active IPFE', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.110', [], {
          secondary: { address: '10.0.0.111', activeIpfe: 'B2' },
          servers: [{ address: '10.0.0.13', secondaryAddress: '10.0.0.23' }],
        }),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.secondary.activeIpfe',
        `IPFE B2 is not configured. ${configure}`,
        'options.ipfe.B2.address',
      ),
    ]);
  });

  it('un-configuring the active slot puts the Target Set in error', () => {
    const input = configWith({ options: { ipfe: { A2: { address: '10.0.0.202' } } } });
    expect(errorsOf(issuesOf(input))).toEqual([
      error(
        'targetSets.0.primary.activeIpfe',
        `IPFE A1 is not configured. ${configure}`,
        'options.ipfe.A1.address',
      ),
    ]);
  });
});

describe('IP lists of two Target Sets: identical or disjoint', () => {
  it('identical lists are fine, in any order', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12']),
        targetSet(2, '10.0.0.110', ['10.0.0.12', '10.0.0.11']),
      ],
    });
    expect(issuesOf(input)).toEqual([]);
  });

  it('disjoint lists are fine', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12']),
        targetSet(2, '10.0.0.110', ['10.0.0.13']),
      ],
    });
    expect(issuesOf(input)).toEqual([]);
  });

  it('partly overlapping lists are an error on both, naming the other Target Set', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12']),
        targetSet(2, '10.0.0.110', ['10.0.0.12', '10.0.0.13']),
      ],
    });
    // Each names the row holding the shared server, and the other Target Set of the pair.
    expect(issuesOf(input)).toEqual([
      {
        ...error(
          'targetSets.0.servers',
          'The IP list partly overlaps the IP list of Target Set 2 (shared: 10.0.0.12); two lists must be identical or disjoint',
        ),
        valuePath: 'targetSets.0.servers.1.address',
        pairedWith: 'targetSets.1',
      },
      {
        ...error(
          'targetSets.1.servers',
          'The IP list partly overlaps the IP list of Target Set 1 (shared: 10.0.0.12); two lists must be identical or disjoint',
        ),
        valuePath: 'targetSets.1.servers.0.address',
        pairedWith: 'targetSets.0',
      },
    ]);
  });

  it('a list that is a subset of another is a partial overlap', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12']),
        targetSet(7, '10.0.0.110', ['10.0.0.11']),
      ],
    });
    expect(errorsOf(issuesOf(input)).map((i) => i.path)).toEqual([
      'targetSets.0.servers',
      'targetSets.1.servers',
    ]);
    expect(issuesOf(input)[0]!.message).toContain('Target Set 7 (shared: 10.0.0.11)');
  });
});

describe('Least Load needs heartbeat monitoring', () => {
  it.each(['tcpConnectOnly', 'disabled'] as const)(
    'Least Load with monitoring %s is an error at the algorithm',
    (monitorProtocol) => {
      const input = configWith({ options: { ...baseConfig().options, monitorProtocol } });
      expect(issuesOf(input)).toEqual([
        error(
          'targetSets.0.algorithm',
          'Least Load needs Application Server Monitoring set to Heartbeat (IPFE › Configuration › Options)',
          'options.monitorProtocol',
        ),
      ]);
    },
  );

  it('Hash works with any monitoring', () => {
    const input = configWith({
      options: { ...baseConfig().options, monitorProtocol: 'disabled' },
      targetSets: [targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12'], { algorithm: 'hash' })],
    });
    expect(issuesOf(input)).toEqual([]);
  });
});

describe('secondary address', () => {
  /** Target Set 1 over mp1 and mp2 with an IPv6 secondary TSA served by A2. */
  function dualHomed(rows: { address: string; secondaryAddress?: string | null }[]) {
    return configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', [], {
          protocols: 'sctp',
          secondary: { address: '2001:db8::100', activeIpfe: 'A2' },
          servers: rows,
        }),
      ],
    });
  }

  it('every row has a secondary address of the same application server', () => {
    const input = dualHomed([
      { address: '10.0.0.11', secondaryAddress: '2001:db8::11' },
      { address: '10.0.0.12', secondaryAddress: '2001:db8::12' },
    ]);
    expect(issuesOf(input)).toEqual([]);
  });

  it('a row without one is an error when the Target Set has a secondary address', () => {
    const input = dualHomed([
      { address: '10.0.0.11', secondaryAddress: '2001:db8::11' },
      { address: '10.0.0.12' },
    ]);
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.servers.1.secondaryAddress',
        'Required: the Target Set has a secondary address',
      ),
    ]);
  });

  it('a row whose server has no address to give it says so, and where to add one', () => {
    const input = dualHomed([
      { address: '10.0.0.11', secondaryAddress: '2001:db8::11' },
      { address: '10.0.0.13' },
    ]);
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.servers.1.secondaryAddress',
        'Required: the Target Set has a secondary address, and application server mp3 has no IPv6 address: add one under Network › Application Servers',
      ),
    ]);
    const single = configWith({
      ...dualHomed([{ address: '10.0.0.14' }]),
      appServers: [...baseConfig().appServers!, appServer('mp4', 3, '10.0.0.14')],
    });
    expect(issuesOf(single)).toEqual([
      error(
        'targetSets.0.servers.0.secondaryAddress',
        'Required: the Target Set has a secondary address, and application server mp4 has no second address: add one under Network › Application Servers',
      ),
    ]);
  });

  it('a row with one is an error when the Target Set has none', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.100', [], {
          servers: [{ address: '10.0.0.11', secondaryAddress: '2001:db8::11' }],
        }),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.servers.0.secondaryAddress',
        'Leave empty: the Target Set has no secondary address',
      ),
    ]);
  });

  it('another server’s address is refused, naming the row’s server', () => {
    const input = dualHomed([
      { address: '10.0.0.11', secondaryAddress: '2001:db8::12' },
      { address: '10.0.0.12', secondaryAddress: '2001:db8::11' },
    ]);
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.servers.0.secondaryAddress',
        '2001:db8::12 is not an address of application server mp1',
        'appServers',
      ),
      error(
        'targetSets.0.servers.1.secondaryAddress',
        '2001:db8::11 is not an address of application server mp2',
        'appServers',
      ),
    ]);
  });

  it('the row’s own address is refused as its secondary', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.110', [], {
          secondary: { address: '10.0.0.111', activeIpfe: 'A2' },
          servers: [{ address: '10.0.0.13', secondaryAddress: '10.0.0.13' }],
        }),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.servers.0.secondaryAddress',
        'The secondary IP address must differ from the IP address',
      ),
    ]);
  });

  it('a secondary address of no application server is refused', () => {
    const input = dualHomed([
      { address: '10.0.0.11', secondaryAddress: '2001:db8::11' },
      { address: '10.0.0.12', secondaryAddress: '2001:db8::99' },
    ]);
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.servers.1.secondaryAddress',
        '2001:db8::99 is not an address of application server mp2',
        'appServers',
      ),
    ]);
  });

  it('warns when the secondary Active IPFE is the primary one', () => {
    const input = dualHomed([
      { address: '10.0.0.11', secondaryAddress: '2001:db8::11' },
      { address: '10.0.0.12', secondaryAddress: '2001:db8::12' },
    ]);
    input.targetSets![0]!.secondary!.activeIpfe = 'A1';
    expect(issuesOf(input)).toEqual([
      warning(
        'targetSets.0.secondary.activeIpfe',
        'should complement the Active IPFE to give SCTP dual-homed traffic an alternative path',
      ),
    ]);
  });
});

describe('IP list addresses', () => {
  it('a row must be an application server address', () => {
    const input = configWith({
      targetSets: [targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.50'])],
    });
    expect(issuesOf(input)).toEqual([
      error(
        'targetSets.0.servers.1.address',
        '10.0.0.50 is not an application server address',
        'appServers',
      ),
    ]);
  });

  it('a secondary address of an unknown row must at least be an application server address', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '10.0.0.110', [], {
          secondary: { address: '10.0.0.111', activeIpfe: 'A2' },
          servers: [{ address: '10.0.0.50', secondaryAddress: '10.0.0.51' }],
        }),
      ],
    });
    expect(errorsOf(issuesOf(input))).toEqual([
      error(
        'targetSets.0.servers.0.address',
        '10.0.0.50 is not an application server address',
        'appServers',
      ),
      error(
        'targetSets.0.servers.0.secondaryAddress',
        '10.0.0.51 is not an application server address',
        'appServers',
      ),
    ]);
  });
});

describe('weights', () => {
  const weighted = (weights: number[], disabled = false) =>
    configWith({
      targetSets: [
        targetSet(1, '10.0.0.110', [], {
          disabled,
          servers: weights.map((weight, i) => ({ address: `10.0.0.1${i + 1}`, weight })),
        }),
      ],
    });

  it('an enabled Target Set with every weight 0 is an error', () => {
    expect(issuesOf(weighted([0, 0, 0]))).toEqual([
      error('targetSets.0.servers', 'at least one server needs a non-zero weight'),
    ]);
  });

  it('one non-zero weight is enough', () => {
    expect(issuesOf(weighted([0, 1, 0]))).toEqual([]);
  });

  it('a disabled Target Set may have every weight 0', () => {
    expect(issuesOf(weighted([0, 0, 0], true))).toEqual([]);
  });
});

describe('Delete Age', () => {
  const withDeleteAge = (deleteAgeSeconds: number) =>
    configWith({
      targetSets: [targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12'], { deleteAgeSeconds })],
    });

  it.each([599, 10])('%i s draws the warning', (seconds) => {
    expect(issuesOf(withDeleteAge(seconds))).toEqual([
      warning(
        'targetSets.0.deleteAgeSeconds',
        'Reducing Delete Age below the default (600 s) is inadvisable',
      ),
    ]);
  });

  it.each([600, 3110400])('%i s draws none', (seconds) => {
    expect(issuesOf(withDeleteAge(seconds))).toEqual([]);
  });
});

describe('IPv6 canonical spelling', () => {
  it('2001:0db8::0001 is stored as 2001:db8::1', () => {
    const config = configurationShape.parse(
      configWith({
        appServers: [appServer('mp1', 0, '2001:0db8::0001')],
        targetSets: [targetSet(1, '2001:0DB8:0000::0100', ['2001:db8:0:0::1'])],
      }),
    );
    expect(config.appServers[0]!.addresses).toEqual(['2001:db8::1']);
    expect(config.targetSets[0]!.primary.address).toBe('2001:db8::100');
    expect(config.targetSets[0]!.servers[0]!.address).toBe('2001:db8::1');
    expect(checkConfiguration(config)).toEqual([]);
  });

  it('two spellings of one TSA are one TSA', () => {
    const input = configWith({
      targetSets: [
        targetSet(1, '2001:db8::100', ['2001:db8::11']),
        targetSet(2, '2001:0db8:0:0::0100', ['2001:db8::12']),
      ],
    });
    expect(issuesOf(input)).toEqual([
      error('targetSets.0.primary.address', '2001:db8::100 is already used by Target Set 2'),
      error('targetSets.1.primary.address', '2001:db8::100 is already used by Target Set 1'),
    ]);
  });
});

describe('unknown and derived keys in a configuration', () => {
  it('are refused at their own path', () => {
    const input = {
      ...baseConfig(),
      colour: 'blue',
      appServers: [{ ...baseConfig().appServers[0]!, owner: 'ops' }],
      targetSets: [
        {
          ...targetSet(1, '10.0.0.100', ['10.0.0.11']),
          primary: { address: '10.0.0.100', activeIpfe: 'A1', standbyIpfe: 'A2' },
        },
      ],
    };
    const result = configurationShape.safeParse(input);
    expect(fieldErrorsOf(result.error!)).toEqual([
      { path: 'appServers.0.owner', message: 'owner is not a field here' },
      { path: 'targetSets.0.primary.standbyIpfe', message: 'This field cannot be changed' },
      { path: 'colour', message: 'colour is not a field here' },
    ]);
  });
});

describe('checkTargetSetIn: the issues of one Target Set, the rest unchecked', () => {
  // Each configuration breaks rules of its own Target Sets and of other entities.
  const cases: [string, ConfigInput][] = [
    ['a valid configuration', baseConfig()],
    [
      'partly overlapping lists, a duplicate number and an address off the XSI networks',
      configWith({
        appServers: [...baseConfig().appServers, appServer('mp4', 3, '10.9.0.14')],
        targetSets: [
          targetSet(1, '10.0.0.100', ['10.0.0.11', '10.0.0.12']),
          targetSet(1, '10.0.0.110', ['10.0.0.12', '10.0.0.13', '10.9.0.14']),
          targetSet(3, '10.0.5.120', ['10.0.0.11', '10.0.0.11'], { deleteAgeSeconds: 20 }),
        ],
      }),
    ],
    [
      'a secondary address, rows without one, a TSA used twice and an unconfigured IPFE',
      configWith({
        options: { ipfe: { A1: { address: '10.0.0.201' } }, monitorProtocol: 'disabled' },
        targetSets: [
          targetSet(1, '10.0.0.100', [], {
            secondary: { address: '2001:db8::100', activeIpfe: 'A2' },
            servers: [
              { address: '10.0.0.11' },
              { address: '10.0.0.12', secondaryAddress: '10.0.0.12' },
            ],
          }),
          targetSet(2, '2001:db8::100', ['2001:db8::11', '10.0.0.12'], { algorithm: 'hash' }),
        ],
      }),
    ],
    [
      'all weights 0 and a server that is no application server',
      configWith({
        targetSets: [
          targetSet(1, '10.0.0.100', [], {
            servers: [
              { address: '10.0.0.11', weight: 0 },
              { address: '10.0.0.99', weight: 0 },
            ],
          }),
        ],
      }),
    ],
  ];
  it.each(cases)('%s: what checkConfiguration puts on that Target Set', (name, input) => {
    const config = configurationShape.parse(input);
    const all = checkConfiguration(config);
    config.targetSets.forEach((_ts, i) => {
      const own = all.filter((issue) => issue.path.startsWith(`targetSets.${i}.`));
      expect(checkTargetSetIn(config, i)).toEqual(own);
    });
    expect(all.length > 0).toBe(name !== 'a valid configuration');
  });

  it('a Target Set the configuration does not hold is a RangeError', () => {
    expect(() => checkTargetSetIn(configurationShape.parse(baseConfig()), 1)).toThrow(RangeError);
  });
});
