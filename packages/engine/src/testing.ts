/**
 * Config documents for the engine's tests and benchmark: a few lines of intent in, a document
 * shaped exactly as the API exports it out (defaults applied, Fm/Fc normalized, derived fields
 * filled). Cross-entity rules (XSI networks) are not checked: the engine does not read them.
 */
import {
  configurationShape,
  deriveConfiguration,
  portRangeOfSlice,
  type ConfigDocument,
  type IpfeSlot,
  type OptionsInput,
  type PeerNodeGroup,
  type TargetSetInput,
} from '@ipfe/schema';

export interface ServerSpec {
  readonly address: string;
  readonly weight?: number;
  readonly secondaryAddress?: string | null;
}

export interface TargetSetSpec extends Partial<Omit<TargetSetInput, 'servers' | 'primary'>> {
  readonly tsa?: string;
  readonly activeIpfe?: IpfeSlot;
  readonly servers: readonly (string | ServerSpec)[];
}

export interface DocumentSpec {
  readonly revision?: number;
  readonly options?: OptionsInput;
  readonly peerNodeGroups?: readonly PeerNodeGroup[];
  readonly targetSets: readonly TargetSetSpec[];
}

export function configDocument(spec: DocumentSpec): ConfigDocument {
  const appServers = new Map<string, { name: string; addresses: string[] }>();
  const targetSets = spec.targetSets.map((ts, i) => {
    const { tsa, activeIpfe, servers, ...rest } = ts;
    const rows = servers.map((s) => (typeof s === 'string' ? { address: s } : s));
    for (const row of rows) {
      if (appServers.has(row.address)) continue;
      const addresses = row.secondaryAddress ? [row.address, row.secondaryAddress] : [row.address];
      appServers.set(row.address, { name: `as-${appServers.size + 1}`, addresses });
    }
    return {
      number: i + 1,
      family: 'ipv4',
      ...rest,
      primary: { address: tsa ?? `192.0.2.${i + 1}`, activeIpfe: activeIpfe ?? 'A1' },
      servers: rows.map((r) => ({
        address: r.address,
        weight: r.weight ?? 100,
        secondaryAddress: r.secondaryAddress ?? null,
      })),
    };
  });
  const config = configurationShape.parse({
    options: {
      ipfe: {
        A1: { address: '198.51.100.1' },
        A2: { address: '198.51.100.2' },
        B1: { address: '198.51.100.3' },
        B2: { address: '198.51.100.4' },
      },
      ...spec.options,
    },
    appServers: [...appServers.values()].map((s, i) => ({
      ...s,
      initiatorPortRange: portRangeOfSlice(i),
    })),
    peerNodeGroups: spec.peerNodeGroups ?? [],
    targetSets,
  });
  return {
    formatVersion: 1,
    revision: spec.revision ?? 1,
    sha256: '0'.repeat(64),
    config: deriveConfiguration(config),
  };
}

/** `n` server addresses 10.1.x.y. */
export function serverAddresses(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`);
}

/** A source (address, port) whose Maglev entry on `tsa` is `server`, or null. */
export function sourceMappedTo(
  hashTarget: (tsa: string, sourceIp: string, sourcePort: number) => string | null,
  tsa: string,
  server: string,
  sourceIp = '172.16.0.1',
): { sourceIp: string; sourcePort: number } | null {
  for (let sourcePort = 1024; sourcePort <= 65535; sourcePort++) {
    if (hashTarget(tsa, sourceIp, sourcePort) === server) return { sourceIp, sourcePort };
  }
  return null;
}

/**
 * SPEC §3.1's table as written there, row by row, for tests to check the engine against
 * (independently of STATE_RULES, which the engine reads).
 */
export const SPEC_STATE_TABLE = {
  underused: {
    inHashTable: true,
    ownNew: 'allow',
    overflow: 'allow',
    existing: 'keep',
    clearsBuckets: false,
  },
  normal: {
    inHashTable: true,
    ownNew: 'allow',
    overflow: 'allow',
    existing: 'keep',
    clearsBuckets: false,
  },
  burdened: {
    inHashTable: true,
    ownNew: 'allow',
    overflow: 'allow',
    existing: 'keep',
    clearsBuckets: false,
  },
  stressed: {
    inHashTable: true,
    ownNew: 'last-resort',
    overflow: 'refuse',
    existing: 'keep',
    clearsBuckets: false,
  },
  overloaded: {
    inHashTable: true,
    ownNew: 'refuse',
    overflow: 'refuse',
    existing: 'keep',
    clearsBuckets: false,
  },
  halting: {
    inHashTable: false,
    ownNew: 'refuse',
    overflow: 'refuse',
    existing: 'keep',
    clearsBuckets: true,
  },
  offline: {
    inHashTable: false,
    ownNew: 'refuse',
    overflow: 'refuse',
    existing: 'delete',
    clearsBuckets: true,
  },
  initializing: {
    inHashTable: true,
    ownNew: 'refuse',
    overflow: 'refuse',
    existing: 'delete',
    clearsBuckets: false,
  },
} as const;
