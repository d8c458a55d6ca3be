/**
 * Part 6 of issue 8: the engine's own benchmark (issue 4, packages/engine/bench/run.ts), run as
 * its owner runs it; its keys are copied into bench/results/engine.json. The engine's committed
 * results file is put back as it was, so that this run leaves the engine's folder untouched.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../lib/results.ts';
import type { PartContext } from './context.ts';

const FILE = join(ROOT, 'packages/engine/bench/results.json');

export async function runEngine(ctx: PartContext): Promise<Record<string, unknown>> {
  const before = existsSync(FILE) ? readFileSync(FILE, 'utf8') : null;
  let output = '';
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('npm', ['run', 'bench', '-w', '@ipfe/engine'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 170_000);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  if (code !== 0)
    throw new Error(`the engine's benchmark failed (${code}): ${output.slice(-1000)}`);
  const written = readFileSync(FILE, 'utf8');
  if (written === before) throw new Error('the engine’s benchmark did not write its results');
  const results = JSON.parse(written) as Record<string, number>;
  if (before !== null) writeFileSync(FILE, before);
  ctx.log(
    `engine: ${Object.entries(results)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  return {
    ...results,
    method:
      'npm run bench -w @ipfe/engine (packages/engine/bench/run.ts, its method in the Engine section of docs/benchmarks.md); figures per CPU second of one process',
  };
}
