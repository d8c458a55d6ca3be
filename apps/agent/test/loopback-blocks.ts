/**
 * Which /16 of 127.0.0.0/8 each loopback test file owns (127.<block>.0.0/16), by its path under
 * apps/agent/test: one entry a file, so a file has exactly one block, and `blockProblems` refuses
 * a block given twice or one that tests elsewhere use (they may run at the same time: vitest runs
 * every project's files side by side).
 */
export const LOOPBACK_BLOCKS: Readonly<Record<string, number>> = {
  'forwarding.test.ts': 31,
  'control.test.ts': 32,
  'monitoring.test.ts': 33,
  'failover.test.ts': 34,
  'traffic.test.ts': 35,
  'relay.test.ts': 37,
  'sigterm.test.ts': 38,
  'limits.test.ts': 39,
  'active-active-paths.test.ts': 46,
  'host-alarms.test.ts': 47,
  'userspace-measurements.test.ts': 48,
  'diameter/diameter.test.ts': 153,
  'direct-sctp.test.ts': 215,
};

/**
 * Blocks of 127.0.0.0/8 that tests and benchmarks outside apps/agent/test listen on or name. (The
 * e2e flows also type 127.31.0.1 and .2 as IPFE addresses; nothing listens there, and e2e runs
 * after the vitest projects.)
 */
export const BLOCKS_TAKEN_ELSEWHERE: Readonly<Record<number, string>> = {
  0: '127.0.0.1: every suite',
  1: 'apps/api/test, apps/cli/test (configurations)',
  2: 'apps/api/test (configurations)',
  40: 'apps/api/test/agent-sync.test.ts',
  41: 'apps/api/test/agent-start-grace.test.ts, cluster.test.ts',
  42: 'apps/api/test/cluster.test.ts, tls.test.ts',
  43: 'apps/api/test/metrics.test.ts',
  45: 'apps/api/test/chaos.test.ts',
  60: 'e2e',
  62: 'e2e',
  70: 'bench',
  162: 'apps/api/test/snmp-traps.test.ts',
  250: 'apps/api/test (configurations)',
};

/** What is wrong with a registry of blocks, one sentence each; none when it is sound. */
export function blockProblems(
  blocks: Readonly<Record<string, number>>,
  takenElsewhere: Readonly<Record<number, string>>,
): string[] {
  const problems: string[] = [];
  const owner = new Map<number, string>();
  for (const [file, block] of Object.entries(blocks)) {
    if (!Number.isInteger(block) || block < 0 || block > 255)
      problems.push(`${file}: ${block} is not a /16 of 127.0.0.0/8`);
    const first = owner.get(block);
    if (first) problems.push(`${file} and ${first} both have 127.${block}.0.0/16`);
    else owner.set(block, file);
    if (block in takenElsewhere)
      problems.push(`${file}: 127.${block}.0.0/16 is taken by ${takenElsewhere[block]}`);
  }
  return problems;
}

/** The block of a test file, by its path under apps/agent/test. */
export function blockOf(file: string, blocks = LOOPBACK_BLOCKS): number {
  const problems = blockProblems(blocks, BLOCKS_TAKEN_ELSEWHERE);
  if (problems.length > 0) throw new Error(`loopback blocks: ${problems.join('; ')}`);
  const block = blocks[file];
  if (block === undefined)
    throw new Error(`${file} has no loopback block: add it to LOOPBACK_BLOCKS with a free one`);
  return block;
}
