/**
 * A sample deployment: where its agents and application servers are, and the configuration an
 * operator would enter for it. `LOCAL` is the whole system on loopback (README's first command);
 * deploy/compose-stack.ts describes the containers of docker-compose.yml with the same shape.
 */
export interface SampleStack {
  agents: readonly { slot: 'A1' | 'A2' | 'B1' | 'B2'; address: string; port: number }[];
  xsiNetworks: readonly { name: string; cidr: string }[];
  servers: readonly { name: string; address: string }[];
  monitoringPort: number;
  diameterPort: number;
  /** Weights are per server, in the order of `servers`. */
  targetSets: readonly {
    number: number;
    algorithm: 'leastLoad' | 'hash';
    address: string;
    activeIpfe: 'A1' | 'A2' | 'B1' | 'B2';
    weights: readonly number[];
  }[];
}

const LOCAL_TSAS = { leastLoad: '127.0.0.100', hash: '127.0.0.101' } as const;

export const LOCAL = {
  oam: { host: '127.0.0.1', port: 8080 },
  agents: [
    { slot: 'A1', address: '127.0.0.11', port: 8701 },
    { slot: 'A2', address: '127.0.0.12', port: 8701 },
  ],
  xsiNetworks: [{ name: 'loopback', cidr: '127.0.0.0/8' }],
  servers: [
    { name: 'mp1', address: '127.0.1.1' },
    { name: 'mp2', address: '127.0.1.2' },
    { name: 'mp3', address: '127.0.1.3' },
  ],
  monitoringPort: 9675,
  diameterPort: 3868,
  tsas: LOCAL_TSAS,
  targetSets: [
    {
      number: 1,
      algorithm: 'leastLoad',
      address: LOCAL_TSAS.leastLoad,
      activeIpfe: 'A1',
      weights: [100, 100, 100],
    },
    {
      number: 2,
      algorithm: 'hash',
      address: LOCAL_TSAS.hash,
      activeIpfe: 'A2',
      weights: [100, 200, 100],
    },
  ],
} as const;

const ALGORITHM_WORDS = { leastLoad: 'least load', hash: 'hash' } as const;

/** The sample configuration of `stack`, as the operator would enter it, in commit order. */
export function sampleConfiguration(stack: SampleStack = LOCAL) {
  return [
    {
      method: 'PUT' as const,
      url: '/api/options',
      body: {
        ipfe: Object.fromEntries(
          stack.agents.map((a) => [a.slot, { address: a.address, agentPort: a.port }]),
        ),
        forwardedPorts: [stack.diameterPort],
        monitoringPort: stack.monitoringPort,
      },
    },
    ...stack.xsiNetworks.map((network) => ({
      method: 'POST' as const,
      url: '/api/xsi-networks',
      body: { name: network.name, cidr: network.cidr },
    })),
    ...stack.servers.map((s) => ({
      method: 'POST' as const,
      url: '/api/app-servers',
      body: { name: s.name, addresses: [s.address] },
    })),
    ...stack.targetSets.map((ts) => ({
      method: 'POST' as const,
      url: '/api/target-sets',
      body: {
        number: ts.number,
        family: 'ipv4',
        algorithm: ts.algorithm,
        primary: { address: ts.address, activeIpfe: ts.activeIpfe },
        servers: stack.servers.map((s, i) => ({
          address: s.address,
          description: `${s.name} ${ALGORITHM_WORDS[ts.algorithm]}`,
          weight: ts.weights[i] ?? 100,
        })),
      },
    })),
  ];
}

export type SeedStep = ReturnType<typeof sampleConfiguration>[number];
