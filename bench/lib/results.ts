import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';

export const RESULTS_DIR = new URL('../results/', import.meta.url).pathname;
export const ROOT = new URL('../../', import.meta.url).pathname;
/** BENCH_PROFILE=1: where the API server and the data-path agents write their CPU profiles. */
export const PROFILE_DIR = join(tmpdir(), 'ipfe-bench-profiles');

export const PARTS = [
  'dataplane',
  'sctp',
  'failover',
  'linkfailover',
  'ecmp',
  'push',
  'api',
  'gui',
  'engine',
  'ha',
  'throttle',
] as const;
export type Part = (typeof PARTS)[number];

/** What every results file says about when, where and on what code it was measured. */
export function meta(startedAt: Date) {
  const git = (...args: string[]) =>
    spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const dirty = git('status', '--porcelain', '--', 'apps', 'packages')
    .split('\n')
    .filter(Boolean).length;
  const cpus = os.cpus();
  return {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    commit: git('rev-parse', '--short', 'HEAD'),
    uncommittedFilesInAppsAndPackages: dirty,
    machine: {
      cpu: cpus[0]?.model ?? 'unknown',
      cores: cpus.length,
      memoryGB: Math.round(os.totalmem() / 2 ** 30),
      kernel: os.release(),
      node: process.version,
      loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100,
    },
  };
}

/** Writes bench/results/<part>.json, formatted as the repository's Prettier would (it is committed). */
export async function writeResult(part: Part, result: Record<string, unknown>) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `${RESULTS_DIR}${part}.json`;
  const options = (await prettier.resolveConfig(file)) ?? {};
  const text = await prettier.format(JSON.stringify(result), { ...options, filepath: file });
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

export function readResult(part: Part): Record<string, unknown> | null {
  const file = `${RESULTS_DIR}${part}.json`;
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

interface Row {
  part: Part;
  key: string;
  target?: { op: '>=' | '<='; value: number };
}

/** The keys of issue 8 (and the engine's of issue 4) with their targets, in table order. */
export const ROWS: Row[] = [
  { part: 'dataplane', key: 'connCostRatio', target: { op: '>=', value: 1 } },
  { part: 'dataplane', key: 'byteCostRatio', target: { op: '>=', value: 1 } },
  { part: 'dataplane', key: 'p99Ratio', target: { op: '>=', value: 1 } },
  { part: 'dataplane', key: 'userspaceConnCostRatio' },
  { part: 'dataplane', key: 'userspaceByteCostRatio' },
  { part: 'dataplane', key: 'directConnCostRatio', target: { op: '>=', value: 4 } },
  { part: 'dataplane', key: 'directByteCostRatio' },
  { part: 'dataplane', key: 'directResponseBytesThroughIpfe', target: { op: '<=', value: 0 } },
  ...(['direct', 'kernel', 'userspace', 'haproxy'] as const).flatMap((p) =>
    ['UsPerConn', 'UsPerMB', 'P99Ms'].map((k) => ({ part: 'dataplane' as const, key: `${p}${k}` })),
  ),
  { part: 'sctp', key: 'associationsPerSec' },
  { part: 'sctp', key: 'baselineAssociationsPerSec' },
  { part: 'sctp', key: 'multihomedSurvivedPct', target: { op: '>=', value: 100 } },
  { part: 'sctp', key: 'multihomedTrials' },
  // One entry per data path; a key `path.key` reads inside the path's entry.
  ...['kernel', 'direct'].flatMap((path): Row[] => [
    { part: 'failover', key: `${path}.p50Ms`, target: { op: '<=', value: 250 } },
    { part: 'failover', key: `${path}.p99Ms`, target: { op: '<=', value: 400 } },
    { part: 'failover', key: `${path}.survivedPct`, target: { op: '>=', value: 100 } },
    { part: 'failover', key: `${path}.trials` },
  ]),
  // Issue 27 item 6: the active IPFE's TSA-facing link cut (decision 028), both paths together.
  { part: 'linkfailover', key: 'linkFailoverMs.p50' },
  { part: 'linkfailover', key: 'linkFailoverMs.p99', target: { op: '<=', value: 500 } },
  { part: 'linkfailover', key: 'linkFailoverSurvivedPct', target: { op: '>=', value: 100 } },
  { part: 'linkfailover', key: 'linkReturnSurvivedPct', target: { op: '>=', value: 100 } },
  ...['kernel', 'direct'].map((path): Row => ({
    part: 'linkfailover',
    key: `${path}.linkFailoverMs.p99`,
  })),
  { part: 'linkfailover', key: 'linkFailoverMs.trials' },
  { part: 'ecmp', key: 'ipfes' },
  { part: 'ecmp', key: 'sharePctMin' },
  { part: 'ecmp', key: 'sharePctMax' },
  { part: 'ecmp', key: 'failoverMs.p50' },
  { part: 'ecmp', key: 'failoverMs.p99', target: { op: '<=', value: 300 } },
  { part: 'ecmp', key: 'bfdFailoverMs.p50' },
  { part: 'ecmp', key: 'bfdFailoverMs.p99', target: { op: '<=', value: 300 } },
  { part: 'ecmp', key: 'survivedPct', target: { op: '>=', value: 100 } },
  { part: 'ecmp', key: 'joinSurvivedPct', target: { op: '>=', value: 100 } },
  { part: 'ecmp', key: 'trials' },
  { part: 'push', key: 'p50Ms' },
  { part: 'push', key: 'p99Ms', target: { op: '<=', value: 50 } },
  { part: 'push', key: 'commits' },
  { part: 'push', key: 'agents' },
  { part: 'api', key: 'ratio', target: { op: '>=', value: 0.5 } },
  { part: 'api', key: 'apiRps' },
  { part: 'api', key: 'bareRps' },
  { part: 'api', key: 'bareObjectRps' },
  { part: 'gui', key: 'viewMedianMs', target: { op: '<=', value: 300 } },
  { part: 'gui', key: 'bundleGzipKB', target: { op: '<=', value: 200 } },
  { part: 'gui', key: 'initialJsGzipKB', target: { op: '<=', value: 120 } },
  { part: 'gui', key: 'ipListKeystrokeP95Ms', target: { op: '<=', value: 50 } },
  { part: 'gui', key: 'ipListKeystrokeP95Ms1' },
  { part: 'gui', key: 'ipListKeystrokeRatio', target: { op: '<=', value: 2 } },
  { part: 'engine', key: 'hashDecisionsPerSec', target: { op: '>=', value: 2_000_000 } },
  { part: 'engine', key: 'leastLoadDecisionsPerSec', target: { op: '>=', value: 1_000_000 } },
  { part: 'engine', key: 'lookupsPerSec', target: { op: '>=', value: 5_000_000 } },
  { part: 'engine', key: 'bytesPerEntry', target: { op: '<=', value: 200 } },
  { part: 'engine', key: 'buildMs', target: { op: '<=', value: 5 } },
  { part: 'engine', key: 'balanceMaxOverMean', target: { op: '<=', value: 1.01 } },
  { part: 'engine', key: 'disruptionPct', target: { op: '<=', value: 4.2 } },
  // Issue 25 item 7: PostgreSQL against SQLite, a leader killed, the store's primary killed.
  { part: 'ha', key: 'pgCommitRatio' },
  { part: 'ha', key: 'oneClient.pgCommitRatio' },
  { part: 'ha', key: 'pgReadRatio' },
  { part: 'ha', key: 'sqliteCommitsPerSec' },
  { part: 'ha', key: 'pgCommitsPerSec' },
  { part: 'ha', key: 'sqliteReadsPerSec' },
  { part: 'ha', key: 'pgReadsPerSec' },
  { part: 'ha', key: 'leaderTakeoverMs.p50' },
  { part: 'ha', key: 'leaderTakeoverMs.p99', target: { op: '<=', value: 2000 } },
  { part: 'ha', key: 'leaderTakeoverMs.trials' },
  { part: 'ha', key: 'storeFailoverMs.p50' },
  { part: 'ha', key: 'storeFailoverMs.p99' },
  { part: 'ha', key: 'storeFailoverMs.trials' },
  { part: 'ha', key: 'lostCommits', target: { op: '<=', value: 0 } },
  { part: 'ha', key: 'duplicateTraps', target: { op: '<=', value: 0 } },
  { part: 'ha', key: 'lostTraps' },
  // Issue 27 item 6: the Global Packet Rate Limit under a flood at twice it (direct path).
  { part: 'throttle', key: 'throttleForwardedRatio' },
  { part: 'throttle', key: 'throttleForwardedOffPct', target: { op: '<=', value: 5 } },
  { part: 'throttle', key: 'throttleHeldSurvivedPct', target: { op: '>=', value: 100 } },
  { part: 'throttle', key: 'throttleAlarmMs' },
];

const format = (value: unknown) =>
  typeof value === 'number'
    ? Math.abs(value) >= 10_000
      ? Math.round(value).toLocaleString('en-US')
      : String(value)
    : value === null || value === undefined
      ? 'not measured'
      : String(value);

export function met(row: Row, value: unknown): string {
  if (!row.target) return '';
  if (typeof value !== 'number') return 'not measured';
  const ok = row.target.op === '>=' ? value >= row.target.value : value <= row.target.value;
  return ok ? 'yes' : 'no';
}

/** The summary of every part's latest results file: text columns, or a Markdown table. */
export function summary(markdown = false): string {
  const lines: string[][] = [['part', 'key', 'figure', 'target', 'met']];
  const results = new Map<Part, Record<string, unknown> | null>();
  for (const part of PARTS) results.set(part, readResult(part));
  for (const row of ROWS) {
    const result = results.get(row.part);
    const value = row.key
      .split('.')
      .reduce<unknown>((at, k) => (at as Record<string, unknown> | undefined)?.[k], result);
    const note = result === null ? 'no results file' : result?.skipped ? 'skipped' : undefined;
    // A cost within the method's noise is null with a note ("below resolution (±…)").
    const why = value === null ? result?.[`${row.key}Note`] : undefined;
    lines.push([
      row.part,
      row.key,
      note && value === undefined ? note : typeof why === 'string' ? why : format(value),
      row.target ? `${row.target.op} ${format(row.target.value)}` : '',
      typeof why === 'string' && row.target ? 'not resolved' : met(row, value),
    ]);
  }
  if (markdown)
    lines.splice(
      1,
      0,
      lines[0]!.map(() => '---'),
    );
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const pad = (l: string[]) => l.map((cell, i) => cell.padEnd(widths[i]!));
  return lines.map((l) => (markdown ? `| ${pad(l).join(' | ')} |` : pad(l).join('  '))).join('\n');
}
