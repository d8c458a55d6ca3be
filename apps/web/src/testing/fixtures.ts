import {
  deriveTargetSet,
  optionsSchema,
  targetSetSchema,
  type AppServer,
  type Configuration,
  type Options,
  type TargetSetInput,
  type XsiNetwork,
} from '@ipfe/schema';
import type { TargetSetView } from '@/features/target-sets/api/get-target-sets';
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
  return { ...deriveTargetSet(full, ts), warnings: [] };
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
