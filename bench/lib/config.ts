import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationShape, type ConfigDocument } from '@ipfe/schema';
import { buildDocument } from '@ipfe/schema/digest';

export const BENCH_TOKEN = 'bench-token-0123456789abcdefghijklmnopqrstuvwxyz';

export interface BenchConfig {
  ipfe: Partial<Record<'A1' | 'A2' | 'B1' | 'B2', string>>;
  options?: Record<string, unknown>;
  xsi: string;
  /** Application servers by address, named s1, s2, … */
  servers: string[];
  targetSets: {
    number: number;
    tsa: string;
    activeIpfe?: 'A1' | 'A2' | 'B1' | 'B2';
    servers: string[];
    algorithm?: 'hash' | 'leastLoad';
    weight?: number;
  }[];
}

/** A config document as the OAM would push it (same schema, same derivation, same digest). */
export function benchDocument(revision: number, spec: BenchConfig): ConfigDocument {
  const config = configurationShape.parse({
    options: {
      ipfe: Object.fromEntries(Object.entries(spec.ipfe).map(([s, address]) => [s, { address }])),
      ...spec.options,
    },
    xsiNetworks: [{ name: 'bench', cidr: spec.xsi }],
    appServers: spec.servers.map((address, i) => ({
      name: `s${i + 1}`,
      addresses: [address],
      initiatorPortRange: { start: 16384 + 512 * i, end: 16384 + 512 * i + 511 },
    })),
    targetSets: spec.targetSets.map((ts) => ({
      number: ts.number,
      family: 'ipv4',
      algorithm: ts.algorithm ?? 'hash',
      primary: { address: ts.tsa, activeIpfe: ts.activeIpfe ?? 'A1' },
      servers: ts.servers.map((address) => ({ address, weight: ts.weight ?? 100 })),
    })),
  });
  return buildDocument(revision, config);
}

/** Writes the document where an agent started with `--state-dir dir` applies it at start. */
export function persistFor(dir: string, document: ConfigDocument) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(document));
}
