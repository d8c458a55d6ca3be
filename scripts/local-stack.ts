/**
 * The whole system on loopback (README's first command): the OAM (API + GUI), agents A1 and A2,
 * three application servers (reporter + echo), and a sample configuration on the first run.
 */
export const LOCAL = {
  oam: { host: '127.0.0.1', port: 8080 },
  agents: [
    { slot: 'A1', address: '127.0.0.11', port: 8701 },
    { slot: 'A2', address: '127.0.0.12', port: 8701 },
  ],
  servers: [
    { name: 'mp1', address: '127.0.1.1' },
    { name: 'mp2', address: '127.0.1.2' },
    { name: 'mp3', address: '127.0.1.3' },
  ],
  monitoringPort: 9675,
  diameterPort: 3868,
  tsas: { leastLoad: '127.0.0.100', hash: '127.0.0.101' },
} as const;

/** The sample configuration, as the operator would enter it, in commit order. */
export function sampleConfiguration() {
  return [
    {
      method: 'PUT' as const,
      url: '/api/options',
      body: {
        ipfe: Object.fromEntries(
          LOCAL.agents.map((a) => [a.slot, { address: a.address, agentPort: a.port }]),
        ),
        forwardedPorts: [LOCAL.diameterPort],
        monitoringPort: LOCAL.monitoringPort,
      },
    },
    {
      method: 'POST' as const,
      url: '/api/xsi-networks',
      body: { name: 'loopback', cidr: '127.0.0.0/8' },
    },
    ...LOCAL.servers.map((s) => ({
      method: 'POST' as const,
      url: '/api/app-servers',
      body: { name: s.name, addresses: [s.address] },
    })),
    {
      method: 'POST' as const,
      url: '/api/target-sets',
      body: {
        number: 1,
        family: 'ipv4',
        algorithm: 'leastLoad',
        primary: { address: LOCAL.tsas.leastLoad, activeIpfe: 'A1' },
        servers: LOCAL.servers.map((s) => ({
          address: s.address,
          description: `${s.name} least load`,
          weight: 100,
        })),
      },
    },
    {
      method: 'POST' as const,
      url: '/api/target-sets',
      body: {
        number: 2,
        family: 'ipv4',
        algorithm: 'hash',
        primary: { address: LOCAL.tsas.hash, activeIpfe: 'A2' },
        servers: LOCAL.servers.map((s, i) => ({
          address: s.address,
          description: `${s.name} hash`,
          weight: [100, 200, 100][i],
        })),
      },
    },
  ];
}
