import { LOCAL, type SampleStack } from '../scripts/local-stack.ts';

/**
 * The deployment of docker-compose.yml: the addresses its containers have and the sample
 * configuration the OAM container commits on its first start (IPFE_SEED=compose).
 *
 * The addresses are from the documentation ranges of RFC 5737 (198.51.100.0/24 and
 * 203.0.113.0/24): they exist only on the compose networks. Nothing outside those containers —
 * no test, script or benchmark of this repository — may connect to them; deploy/compose.test.ts
 * checks that docker-compose.yml and this file agree.
 */
export const COMPOSE_NETWORKS = {
  /** OAM ↔ agents (control, status), mate beacons, agents ↔ application servers. */
  backend: '198.51.100.0/24',
  /** The Target Set Addresses that clients connect to. */
  public: '203.0.113.0/24',
} as const;

export const COMPOSE = {
  oam: { address: '198.51.100.5', port: 8080 },
  agents: [
    { slot: 'A1', address: '198.51.100.11', port: 8701 },
    { slot: 'A2', address: '198.51.100.12', port: 8701 },
    { slot: 'B1', address: '198.51.100.21', port: 8701 },
    { slot: 'B2', address: '198.51.100.22', port: 8701 },
  ],
  xsiNetworks: [
    { name: 'backend', cidr: COMPOSE_NETWORKS.backend },
    { name: 'public', cidr: COMPOSE_NETWORKS.public },
  ],
  servers: [
    { name: 'mp1', address: '198.51.100.101' },
    { name: 'mp2', address: '198.51.100.102' },
    { name: 'mp3', address: '198.51.100.103' },
  ],
  monitoringPort: 9675,
  diameterPort: 3868,
  relayPort: 9676,
  /** Each TSA is the public address of the container of its preferred active IPFE. */
  targetSets: [
    {
      number: 1,
      algorithm: 'leastLoad',
      address: '203.0.113.11',
      activeIpfe: 'A1',
      weights: [100, 100, 100],
    },
    {
      number: 2,
      algorithm: 'hash',
      address: '203.0.113.12',
      activeIpfe: 'A2',
      weights: [100, 200, 100],
    },
    {
      number: 3,
      algorithm: 'leastLoad',
      address: '203.0.113.21',
      activeIpfe: 'B1',
      weights: [100, 100, 100],
    },
    {
      number: 4,
      algorithm: 'hash',
      address: '203.0.113.22',
      activeIpfe: 'B2',
      weights: [100, 100, 200],
    },
  ],
} as const satisfies SampleStack & { oam: unknown; relayPort: number };

/** The samples the OAM container can commit on its first start, by IPFE_SEED value. */
export const SEED_STACKS: Readonly<Record<'local' | 'compose', SampleStack>> = {
  local: LOCAL,
  compose: COMPOSE,
};
