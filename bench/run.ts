/**
 * `npm run bench [-- part …]` (issue 8): runs the named parts (all by default), writes
 * bench/results/<part>.json for each, and prints the summary of every part's latest results
 * with each target and whether it is met. `npm run bench:<part>` runs one part; `npm run bench --
 * --table` prints the latest results as a Markdown table and measures nothing.
 */
import { cleanupAll, installCleanupHandlers } from './lib/cleanup.ts';
import { meta, PARTS, summary, writeResult, type Part } from './lib/results.ts';
import type { PartContext } from './parts/context.ts';

const PART_TIMEOUT_MS: Record<Part, number> = {
  dataplane: 900_000, // 41 runs of each kind
  sctp: 180_000,
  failover: 480_000, // two paths, 20 trials each
  linkfailover: 600_000, // two paths, 20 cuts and returns each
  push: 120_000,
  api: 120_000,
  gui: 240_000,
  engine: 180_000,
  ecmp: 600_000, // 24 losses and returns of an IPFE
  ha: 1_800_000, // 20 leader takeovers, 10 store failovers of 20–40 s each
  throttle: 300_000, // 5 floods of 10 s, each waiting for 5013 to clear
};

async function runPart(part: Part, ctx: PartContext): Promise<Record<string, unknown>> {
  switch (part) {
    case 'dataplane': {
      const { runDataplane, DATAPLANE_DEFAULTS } = await import('./parts/dataplane.ts');
      return runDataplane(
        ctx,
        ctx.quick
          ? { ...DATAPLANE_DEFAULTS, rounds: 1, connSeconds: 3, bulkSeconds: 3 }
          : DATAPLANE_DEFAULTS,
      );
    }
    case 'sctp': {
      const { runSctp, SCTP_DEFAULTS } = await import('./parts/sctp.ts');
      return runSctp(
        ctx,
        ctx.quick ? { ...SCTP_DEFAULTS, rateRounds: 1, rateSeconds: 2, trials: 3 } : SCTP_DEFAULTS,
      );
    }
    case 'failover':
      return (await import('./parts/failover.ts')).runFailover(ctx);
    case 'linkfailover':
      return (await import('./parts/linkfailover.ts')).runLinkFailover(ctx);
    case 'push':
      return (await import('./parts/push.ts')).runPush(ctx);
    case 'api':
      return (await import('./parts/api.ts')).runApi(ctx);
    case 'gui':
      return (await import('./parts/gui.ts')).runGui(ctx);
    case 'engine':
      return (await import('./parts/engine.ts')).runEngine(ctx);
    case 'ecmp':
      return (await import('./parts/ecmp.ts')).runEcmp(ctx);
    case 'ha':
      return (await import('./parts/ha.ts')).runHa(ctx);
    case 'throttle':
      return (await import('./parts/throttle.ts')).runThrottle(ctx);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
    }),
  ]);
}

async function main() {
  if (process.argv.includes('--table')) {
    // The latest results as a Markdown table (for docs/benchmarks.md), measuring nothing.
    console.log(summary(true));
    return;
  }
  const asked = process.argv.slice(2);
  const unknown = asked.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) {
    console.error(`bench: unknown part ${unknown.join(', ')}; parts: ${PARTS.join(', ')}`);
    process.exit(2);
  }
  installCleanupHandlers();
  const parts = asked.length > 0 ? (asked as Part[]) : [...PARTS];
  const ctx: PartContext = {
    log: (line) => console.error(`  ${line}`),
    quick: process.env.BENCH_QUICK === '1',
  };
  const started = Date.now();
  let failures = 0;
  for (const part of parts) {
    const startedAt = new Date();
    console.error(`bench: ${part} …`);
    let result: Record<string, unknown>;
    try {
      result = await withTimeout(runPart(part, ctx), PART_TIMEOUT_MS[part], part);
    } catch (err) {
      failures++;
      console.error(`bench: ${part} failed: ${(err as Error).stack ?? String(err)}`);
      result = { failed: (err as Error).message };
    } finally {
      cleanupAll();
    }
    if (result.skipped) console.error(`bench: ${part} skipped: ${String(result.skipped)}`);
    await writeResult(part, { ...result, quick: ctx.quick || undefined, meta: meta(startedAt) });
    console.error(
      `bench: ${part} done in ${Math.round((Date.now() - startedAt.getTime()) / 1000)} s`,
    );
  }
  console.log(`\nIPFE benchmarks (${Math.round((Date.now() - started) / 1000)} s)\n`);
  console.log(summary());
  process.exit(failures > 0 ? 1 : 0);
}

void main();
