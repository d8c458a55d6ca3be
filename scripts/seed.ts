import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SeedStep } from './local-stack.ts';

/**
 * Seeding a fresh OAM through its own API, as an operator would: used by `npm start` on the first
 * run and by the OAM container (deploy/oam-entry.ts) with the compose addresses.
 */

export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** IPFE_ADMIN_PASSWORD, or the password the OAM generated on its first start. */
export function adminPassword(dataDir: string, env: NodeJS.ProcessEnv = process.env) {
  if (env.IPFE_ADMIN_PASSWORD) return env.IPFE_ADMIN_PASSWORD;
  const file = join(dataDir, 'initial-admin-password');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}

export type SeedOutcome = 'seeded' | 'already configured' | 'no password' | 'login failed';

/** On the first run (no revision yet) commits `steps` through the API; later runs change nothing. */
export async function seedOnFirstRun(
  oamUrl: string,
  password: string | null,
  steps: readonly SeedStep[],
  log: (line: string) => void,
): Promise<SeedOutcome> {
  if (!password) {
    log('cannot log in as admin to seed (no initial-admin-password); skipping the sample');
    return 'no password';
  }
  const login = await fetch(`${oamUrl}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  if (!login.ok) {
    log(`admin login failed (${login.status}); skipping the sample configuration`);
    return 'login failed';
  }
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { csrfToken } = (await login.json()) as { csrfToken: string };
  const headers = { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' };
  const revisions = (await (
    await fetch(`${oamUrl}/api/revisions?limit=1`, { headers })
  ).json()) as { total: number };
  if (revisions.total > 0) return 'already configured';
  log('first run: committing the sample configuration');
  for (const step of steps) {
    const extra: Record<string, string> = {};
    if (step.method === 'PUT')
      extra['if-match'] =
        (await fetch(`${oamUrl}${step.url}`, { headers })).headers.get('etag') ?? '';
    const response = await fetch(`${oamUrl}${step.url}`, {
      method: step.method,
      headers: { ...headers, ...extra },
      body: JSON.stringify(step.body),
    });
    if (!response.ok)
      throw new Error(`seeding ${step.url} failed: ${response.status} ${await response.text()}`);
  }
  return 'seeded';
}
