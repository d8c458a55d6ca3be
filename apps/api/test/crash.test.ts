import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The API killed with SIGKILL at random moments during a stream of commits, then restarted on the
 * same file: every acknowledged commit is there, numbering is contiguous, nothing is half-written.
 * The suite runs a short version; `npm run chaos` runs 500 commits and 10 kills.
 */
const CHAOS = process.env.IPFE_CHAOS === '1';
const COMMITS = CHAOS ? 500 : 150;
const KILLS = CHAOS ? 10 : 3;
const PASSWORD = 'crash-test-password';
const dir = mkdtempSync(join(tmpdir(), 'ipfe-crash-'));
const port = 19000 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${port}`;
const server = new URL('../src/server.ts', import.meta.url).pathname;
let child: ChildProcess | null = null;
let starts = 0;

afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function startServer() {
  starts++;
  // `node --import tsx` runs the server in this very process: SIGKILL hits the server itself.
  child = spawn(process.execPath, ['--import', 'tsx', server], {
    env: {
      ...process.env,
      IPFE_DATA_DIR: dir,
      PORT: String(port),
      IPFE_ADMIN_PASSWORD: PASSWORD,
      LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (
      await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the API did not start');
}

async function session() {
  const response = await fetch(`${base}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  return { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' };
}

describe('a crash never loses an acknowledged commit', () => {
  it(`survives ${KILLS} SIGKILLs during ${COMMITS} commits`, async () => {
    const acknowledged = new Map<number, number>(); // revision → leastLoadThreshold it committed
    // Kill points spread over the stream; each kill lands 0–3 ms into a request, mid-commit or not.
    const killPoints = Array.from(
      { length: KILLS },
      (_, i) => Math.floor(((i + Math.random()) * COMMITS) / (KILLS + 1)) + 1,
    );
    let value = 0;
    let kills = 0;
    await startServer();
    while (acknowledged.size < COMMITS) {
      try {
        const headers = await session();
        while (acknowledged.size < COMMITS) {
          const current = await fetch(`${base}/api/options`, { headers });
          const next = ++value;
          if (kills < KILLS && acknowledged.size >= killPoints[kills]!) {
            kills++;
            const victim = child!;
            setTimeout(() => victim.kill('SIGKILL'), Math.random() * 3);
          }
          const response = await fetch(`${base}/api/options`, {
            method: 'PUT',
            headers: { ...headers, 'if-match': current.headers.get('etag') ?? '' },
            body: JSON.stringify({ leastLoadThreshold: next }),
          });
          if (response.status === 200)
            acknowledged.set(Number(response.headers.get('x-ipfe-revision')), next);
        }
      } catch {
        // The server died mid-request: what it acknowledged before must survive. Restart it.
        await new Promise<void>((resolve) =>
          child!.exitCode !== null || child!.signalCode !== null
            ? resolve()
            : child!.once('exit', () => resolve()),
        );
        await startServer();
      }
    }
    child?.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    expect(kills).toBe(KILLS);
    expect(starts).toBe(KILLS + 1); // every kill really took the server down

    const db = new Database(join(dir, 'ipfe-oam.sqlite'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const rows = db
        .prepare<[], { number: number; document: string }>(
          'SELECT number, document FROM revisions ORDER BY number',
        )
        .all();
      expect(rows.map((r) => r.number)).toEqual(rows.map((_, i) => i + 1)); // contiguous from 1
      const byNumber = new Map(rows.map((r) => [r.number, JSON.parse(r.document)]));
      for (const [revision, threshold] of acknowledged) {
        expect(
          byNumber.get(revision)?.config.options.leastLoadThreshold,
          `revision ${revision}`,
        ).toBe(threshold);
      }
    } finally {
      db.close();
    }
  }, 300_000);
});
