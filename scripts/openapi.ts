/**
 * The OAM's OpenAPI document without a running server, and its lint with the Redocly CLI.
 *
 *   tsx scripts/openapi.ts write [file]   write the document (default artifacts/openapi.json)
 *   tsx scripts/openapi.ts lint [file]    lint it: Redocly's recommended rules (redocly.yaml);
 *                                         any error or warning fails, exit code 1
 *   tsx scripts/openapi.ts check          write, then lint (npm run lint:openapi)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../apps/api/src/app.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const DEFAULT_FILE = join(root, 'artifacts', 'openapi.json');
const REDOCLY = join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

/** The document as /api/openapi.json serves it, from an app on a throwaway database. */
export async function openApiDocument(): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'ipfe-openapi-'));
  try {
    const app = await buildApp({
      databaseFile: join(dir, 'ipfe-oam.sqlite'),
      sessionSecret: 'openapi-document-only-no-session-is-made',
      agentSync: { enabled: false },
    });
    await app.ready();
    const document = app.swagger();
    await app.close();
    return document;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function write(file: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(await openApiDocument(), null, 2)}\n`);
  console.log(`wrote ${relative(process.cwd(), file)}`);
}

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer?: string }[];
}

/** Redocly fails on errors only; a warning fails here too, since the goal is none of either. */
function lint(file: string): boolean {
  const run = spawnSync(process.execPath, [REDOCLY, 'lint', '--format', 'json', file], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  let report: { totals: { errors: number; warnings: number; ignored: number } };
  let problems: Problem[];
  try {
    ({ problems, ...report } = JSON.parse(run.stdout) as typeof report & { problems: Problem[] });
  } catch {
    console.error(`redocly lint gave no report (exit ${run.status}):\n${run.stderr}`);
    return false;
  }
  for (const p of problems) {
    const where = p.location.map((l) => l.pointer ?? '').join(', ');
    console.error(
      `${p.severity === 'error' ? 'error' : 'warning'} ${p.ruleId} at ${where}: ${p.message}`,
    );
  }
  const { errors, warnings, ignored } = report.totals;
  console.log(
    `${relative(process.cwd(), file)}: ${errors} errors, ${warnings} warnings (Redocly recommended rules; ${ignored} excepted in .redocly.lint-ignore.yaml)`,
  );
  return errors === 0 && warnings === 0 && run.status === 0;
}

async function main(args: string[]) {
  const [command, fileArg] = args;
  const file = fileArg ? resolve(process.env.INIT_CWD ?? process.cwd(), fileArg) : DEFAULT_FILE;
  if (command === 'write') return write(file);
  if (command === 'lint') return void (process.exitCode = lint(file) ? 0 : 1);
  if (command === 'check' && !fileArg) {
    await write(file);
    return void (process.exitCode = lint(file) ? 0 : 1);
  }
  console.error('usage: tsx scripts/openapi.ts write [file] | lint [file] | check');
  process.exitCode = 2;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
