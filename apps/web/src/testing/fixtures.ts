import {
  deriveTargetSet,
  type AgentStatus,
  optionsSchema,
  targetSetSchema,
  type AppServer,
  type Configuration,
  type Options,
  type TargetSetInput,
  type XsiNetwork,
} from '@ipfe/schema';
import type { TargetSetView } from '@/features/target-sets/api/get-target-sets';
import type { IpfeSlotView, IpfeView } from '@/features/ipfe-status/api/get-ipfe';
import type { TargetSetContext } from '@/features/target-sets/components/form-model';

/** IPFE A1 and A2 configured, B1 and B2 not. */
export const options: Options = optionsSchema.parse({
  ipfe: { A1: { address: '10.0.0.1' }, A2: { address: '10.0.0.2' } },
});

export const xsiNetworks: XsiNetwork[] = [
  { name: 'xsi4', cidr: '192.168.10.0/24' },
  { name: 'xsi6', cidr: 'fd00::/64' },
];

const range = (slice: number) => ({ start: 16384 + slice * 512, end: 16384 + slice * 512 + 511 });

export const appServers: AppServer[] = [
  { name: 'mp1', addresses: ['192.168.10.11', 'fd00::11'], initiatorPortRange: range(0) },
  { name: 'mp2', addresses: ['192.168.10.12', 'fd00::12'], initiatorPortRange: range(1) },
  { name: 'mp3', addresses: ['192.168.10.13', 'fd00::13'], initiatorPortRange: range(2) },
  { name: 'mp4', addresses: ['192.168.10.14'], initiatorPortRange: range(3) },
];

export function targetSetView(
  input: TargetSetInput,
  config: Partial<Configuration> = {},
): TargetSetView {
  const ts = targetSetSchema.parse(input);
  const full: Configuration = {
    options,
    xsiNetworks,
    appServers,
    peerNodeGroups: [],
    targetSets: [],
    ...config,
  };
  // No agent reports it (as the API answers before any agent does).
  return {
    ...deriveTargetSet(full, ts),
    warnings: [],
    owner: null,
    activeBindings: null,
    notForwarded: null,
    notServed: null,
  };
}

/** Target Set 1: IPv4, Least Load, mp1 and mp2. */
export const targetSet1 = targetSetView({
  number: 1,
  family: 'ipv4',
  primary: { address: '192.168.10.100', activeIpfe: 'A1' },
  servers: [
    { address: '192.168.10.11', weight: 100, description: 'first' },
    { address: '192.168.10.12', weight: 50 },
  ],
});

export function context(overrides: Partial<TargetSetContext> = {}): TargetSetContext {
  return {
    options,
    xsiNetworks,
    appServers,
    targetSets: [targetSet1],
    editing: null,
    ...overrides,
  };
}

/** One slot of GET /api/ipfe: configured and synced at `revision` unless told otherwise. */
export function ipfeSlot(
  slot: IpfeSlotView['slot'],
  change: Partial<IpfeSlotView> = {},
): IpfeSlotView {
  const address = options.ipfe[slot]?.address ?? null;
  const configured = address !== null;
  return {
    slot,
    configured,
    address,
    agentPort: configured ? 8701 : null,
    state: configured ? 'synced' : 'not configured',
    desiredRevision: configured ? 12 : null,
    appliedRevision: configured ? 12 : null,
    rejected: null,
    lastError: null,
    lastContact: configured ? new Date().toISOString() : null,
    owned: [],
    mateAlive: configured ? true : null,
    dataplane: configured ? 'userspace' : null,
    forwards: configured ? ['tcp'] : null,
    connections: configured ? 0 : null,
    alarms: [],
    ...change,
  };
}

/** GET /api/ipfe with A1 and A2 synced at revision 12 (A1 serving Target Set 1), B1 and B2 not configured. */
export function ipfeView(
  slots: Partial<Record<IpfeSlotView['slot'], Partial<IpfeSlotView>>> = {},
  unserved: IpfeView['unserved'] = [],
): IpfeView {
  return {
    latestRevision: 12,
    unserved,
    items: (['A1', 'A2', 'B1', 'B2'] as const).map((slot) =>
      ipfeSlot(slot, {
        ...(slot === 'A1'
          ? { owned: [{ tsa: '192.168.10.100', targetSet: 1, role: 'active' as const }] }
          : {}),
        ...slots[slot],
      }),
    ),
  };
}

type LiveServer = AgentStatus['targetSets'][number]['servers'][number];

/** A server as an agent reports it: normal, weight 100, L 10, no traffic unless told. */
export const liveServer = (address: string, change: Partial<LiveServer> = {}): LiveServer => ({
  address,
  state: 'normal',
  since: '2026-01-01T00:00:00.000Z',
  weight: 100,
  load: 10,
  newPerSecond: 0,
  active: 0,
  ...change,
});

/** Agent A1's status at revision 12, serving Target Set 1 with the given servers. */
export function agentStatus(servers: LiveServer[], change: Partial<AgentStatus> = {}): AgentStatus {
  return {
    slot: 'A1',
    boot: 'boot-1',
    revision: 12,
    sha256: 'a'.repeat(64),
    appliedAt: '2026-01-01T00:00:00.000Z',
    dataplane: 'userspace',
    forwards: ['tcp'],
    mate: { slot: 'A2', alive: true, lastHeardAt: '2026-01-01T00:00:00.000Z' },
    owned: [{ tsa: '192.168.10.100', targetSet: 1, role: 'active' }],
    listening: ['192.168.10.100:3868'],
    connections: servers.reduce((n, s) => n + s.active, 0),
    targetSets: [
      {
        number: 1,
        disabled: false,
        algorithm: 'leastLoad',
        activeBindings: {
          available: servers.filter((s) => s.weight > 0 && s.state === 'normal').length,
          total: servers.length,
        },
        notForwarded: ['sctp'],
        servers,
      },
    ],
    monitoring: servers.map((s) => ({ server: s.address, up: s.state !== 'offline' })),
    alarms: [],
    alarmHistory: [],
    counters: {
      configApplies: 1,
      configRejects: 0,
      failovers: 0,
      heartbeats: 10,
      malformedHeartbeats: 0,
    },
    ...change,
  };
}
