import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { MaglevTable } from '@ipfe/engine';

export const run = promisify(execFile);

/** Why a kernel data path cannot run here, or null when it can. */
export async function kernelUnavailable(
  tools: readonly string[] = ['nft', 'conntrack'],
): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'the kernel data paths need root (CAP_NET_ADMIN)';
  for (const tool of tools) {
    try {
      await run(tool, ['--version']);
    } catch {
      return `the kernel data paths need \`${tool}\` (Debian packages nftables and conntrack)`;
    }
  }
  return null;
}

/** Applies an nft script in one transaction: all of it or nothing. */
export function nftApply(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('nft', ['-f', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(stderr.trim() || `nft exited ${code}`)),
    );
    child.stdin.end(script);
  });
}

/** The name part of a TSA's nft objects (letters, digits, underscores). */
export const nftId = (address: string) => address.replace(/[.:]/g, '_');

export interface NftCounter {
  name: string;
  packets: number;
  bytes: number;
}

/** The named counters of a table, or null when it cannot be listed (gone, or nft failed). */
export async function readCounters(family: string, table: string): Promise<NftCounter[] | null> {
  try {
    const { stdout } = await run('nft', ['-j', 'list', 'counters', 'table', family, table]);
    const items = (JSON.parse(stdout) as { nftables: { counter?: NftCounter }[] }).nftables;
    return items.flatMap((i) => (i.counter ? [i.counter] : []));
  } catch {
    return null;
  }
}

const mapTexts = new WeakMap<MaglevTable, Map<string, string>>();

/**
 * A bucket table as nft map elements, `bucket : value-of-position`: cached per table and values,
 * since a Hash table has 65,537 entries and is rendered on every refresh.
 */
export function bucketElements(
  table: MaglevTable,
  values: readonly string[],
  key = values.join(','),
): string {
  let byValues = mapTexts.get(table);
  if (!byValues) mapTexts.set(table, (byValues = new Map()));
  let text = byValues.get(key);
  if (text === undefined) {
    text = Array.from(table.entries, (position, bucket) => `${bucket} : ${values[position]}`).join(
      ', ',
    );
    if (byValues.size > 8) byValues.clear();
    byValues.set(key, text);
  }
  return text;
}
