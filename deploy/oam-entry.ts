import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { sampleConfiguration } from '../scripts/local-stack.ts';
import { adminPassword, seedOnFirstRun, waitFor } from '../scripts/seed.ts';
import { SEED_STACKS } from './compose-stack.ts';

/**
 * The OAM container's command (apps/api/Dockerfile): the OAM server of `npm run start -w
 * @ipfe/api`, in this process, plus two things a container needs around it:
 * - IPFE_AGENT_TOKEN_FILE: the push token read from a file (a compose secret) and handed to the
 *   server as IPFE_AGENT_TOKEN;
 * - IPFE_SEED (`none`, `local` or `compose`; default `none`): on the first start (no revision yet),
 *   commits that sample configuration through the API, as `npm start` does on its first run.
 */

const SEEDS = ['none', ...Object.keys(SEED_STACKS)];

function fail(lines: string[]): never {
  for (const line of lines) console.error(`ipfe-oam: ${line}`);
  process.exit(2);
}

function readEntryEnv(env: NodeJS.ProcessEnv, argv: string[]) {
  const problems: string[] = [];
  const seed = env.IPFE_SEED || 'none';
  if (!SEEDS.includes(seed)) problems.push(`IPFE_SEED: must be one of ${SEEDS.join(', ')}`);
  let token: string | undefined;
  if (env.IPFE_AGENT_TOKEN_FILE) {
    if (env.IPFE_AGENT_TOKEN)
      problems.push('IPFE_AGENT_TOKEN_FILE: set it or IPFE_AGENT_TOKEN, not both');
    try {
      token = readFileSync(env.IPFE_AGENT_TOKEN_FILE, 'utf8').trim();
    } catch (err) {
      problems.push(
        `IPFE_AGENT_TOKEN_FILE: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  if (seed !== 'none' && env.PORT === '0')
    problems.push('PORT: must be a fixed port when IPFE_SEED seeds the OAM');
  if (seed !== 'none' && (env.IPFE_TLS_CERT || argv.includes('--tls-cert')))
    problems.push('IPFE_SEED: the sample is committed over plain HTTP; seed once without TLS');
  return { seed: seed as 'none' | keyof typeof SEED_STACKS, token, problems };
}

/** Where this process can reach the server it runs: loopback when it listens on every address. */
function selfUrl(env: NodeJS.ProcessEnv) {
  const host = env.HOST || '127.0.0.1';
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${env.PORT || 8080}`;
}

async function main() {
  const { seed, token, problems } = readEntryEnv(process.env, process.argv.slice(2));
  if (problems.length > 0) fail(problems);
  if (token !== undefined) {
    process.env.IPFE_AGENT_TOKEN = token;
    delete process.env.IPFE_AGENT_TOKEN_FILE;
  }
  // The server checks the rest of the environment (one line per bad value, exit code 2).
  await import('../apps/api/src/server.ts');
  if (seed === 'none') return;

  const base = process.env.INIT_CWD ?? process.cwd();
  const dir = process.env.IPFE_DATA_DIR || './data';
  const dataDir = isAbsolute(dir) ? dir : resolve(base, dir);
  const url = selfUrl(process.env);
  await waitFor('the OAM', async () => (await fetch(`${url}/api/health`)).ok);
  const outcome = await seedOnFirstRun(
    url,
    adminPassword(dataDir),
    sampleConfiguration(SEED_STACKS[seed]),
    (line) => console.log(`ipfe-oam: ${line}`),
  );
  if (outcome === 'seeded') console.log(`ipfe-oam: the ${seed} sample configuration is committed`);
  else if (outcome === 'already configured')
    console.log(`ipfe-oam: the OAM already has a configuration; IPFE_SEED=${seed} changes nothing`);
}

main().catch((err: unknown) => {
  console.error(`ipfe-oam: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
