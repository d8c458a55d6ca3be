import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { ForwardingPlan, MaglevTable } from '@ipfe/engine';
import type { Logger } from 'pino';
import type { ExitGuard } from './exit-guard.ts';

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
/**
 * When a periodic read of the kernel's tables (counters, records, conntrack) may run again: its
 * cost grows with the entries, so it takes at most `shareOfCore` of a core, and waits at least
 * `everyMs`.
 */
export function nextReadAt(
  startedAt: number,
  finishedAt: number,
  { everyMs, shareOfCore }: { everyMs: number; shareOfCore: number },
): number {
  return startedAt + Math.max(everyMs, (finishedAt - startedAt) / shareOfCore);
}

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

/** One element of a listed set: its key, and its timeout's remainder or its counter if it has one. */
export interface NftSetElement {
  val: unknown;
  expires?: number;
  counter?: { packets: number; bytes: number };
}

/**
 * The elements of named sets of a table, by set name; null when none of them could be listed
 * (the table is gone, or nft failed). `list sets table` and `list counters table` make nft 1.0.6
 * load the elements of every set and map of the table first (0.9 s with two 65,537-entry bucket
 * maps), `list set NAME` only its own: one `nft -i` runs one such command per set (several
 * commands of one `nft -f` script go wrong there).
 */
export function listSets(
  family: string,
  table: string,
  names: readonly string[],
): Promise<Map<string, NftSetElement[]> | null> {
  if (names.length === 0) return Promise.resolve(new Map());
  return new Promise((resolve) => {
    const child = spawn('nft', ['-j', '-i'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', () => resolve(null));
    child.once('close', () => {
      const sets = new Map<string, NftSetElement[]>();
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const items = (JSON.parse(line) as { nftables: { set?: NftSetJson }[] }).nftables;
          for (const { set } of items) if (set) sets.set(set.name, (set.elem ?? []).map(elementOf));
        } catch {
          // a line cut short: that set is left out
        }
      }
      resolve(sets.size === 0 ? null : sets);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(names.map((name) => `list set ${family} ${table} ${name}\n`).join(''));
  });
}

interface NftSetJson {
  name: string;
  elem?: unknown[];
}

const elementOf = (e: unknown): NftSetElement =>
  e !== null && typeof e === 'object' && 'elem' in e
    ? (e as { elem: NftSetElement }).elem
    : { val: e };

const mapValues = new WeakMap<MaglevTable, Map<string, readonly string[]>>();

/**
 * A bucket table as what each bucket maps to (`values[position]` of its entry): cached per table
 * and values, since a Hash table has 65,537 entries and is rendered on every refresh.
 */
export function bucketValues(
  table: MaglevTable,
  values: readonly string[],
  key = values.join(','),
): readonly string[] {
  let byValues = mapValues.get(table);
  if (!byValues) mapValues.set(table, (byValues = new Map()));
  let buckets = byValues.get(key);
  if (buckets === undefined) {
    buckets = Array.from(table.entries, (position) => values[position] ?? '');
    if (byValues.size > 8) byValues.clear();
    byValues.set(key, buckets);
  }
  return buckets;
}

/** Map elements `bucket : value`, of every bucket or of those listed. */
export function bucketElements(buckets: readonly string[], only?: readonly number[]): string {
  return (only ?? buckets.map((_, bucket) => bucket))
    .map((bucket) => `${bucket} : ${buckets[bucket]}`)
    .join(', ');
}

/**
 * One table of the agent's own: each change replaces its rules in one transaction, only when the
 * script differs from the one in force; the exit guard removes it should the agent die outright.
 */
export class NftTable {
  #applied: string | null = null;
  #error: string | null = null;

  constructor(
    readonly family: 'inet' | 'netdev',
    readonly name: string,
    private readonly log: Logger,
    private readonly guard: ExitGuard | null = null,
  ) {}

  /** The last transaction's error, or null when the script in force is the one asked for. */
  get error(): string | null {
    return this.#error;
  }

  get programmed(): boolean {
    return this.#applied !== null;
  }

  /** Applies the script unless it is in force already; false when nft refused it. */
  async apply(script: string): Promise<boolean> {
    if (script === this.#applied) return true;
    try {
      await nftApply(script);
      if (this.#applied === null)
        this.guard?.set('2 nftables', ['nft', 'delete', 'table', this.family, this.name]);
      this.#applied = script;
      this.#error = null;
      return true;
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.#error)
        this.log.error({ err: message.slice(0, 2000) }, 'nft transaction failed');
      this.#error = message;
      return false;
    }
  }

  /** The table went from under the agent: the next apply programs it whole. */
  forget(): void {
    this.#applied = null;
  }

  async remove(): Promise<void> {
    await nftApply(`delete table ${this.family} ${this.name}\n`).catch((err: Error) =>
      this.log.warn({ err: err.message }, 'cannot remove the nftables table'),
    );
    this.#applied = null;
    this.guard?.set('2 nftables', null);
  }
}

/** Whether a node serves other TSAs, or another revision, than the last time it was asked. */
export class ServedPlan {
  #served = '';
  #revision = -1;

  changed(plan: ForwardingPlan, tsas: readonly string[]): boolean {
    const served = tsas.join(',');
    const changed = served !== this.#served || plan.revision !== this.#revision;
    this.#served = served;
    this.#revision = plan.revision;
    return changed;
  }
}
