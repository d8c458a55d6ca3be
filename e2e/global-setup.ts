import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from '@playwright/test';
import { ADMIN, authFile, REPO_ROOT, USERS } from './support/env';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

async function waitForHealth(baseURL: string, exited: () => string | null) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const exit = exited();
    if (exit) throw new Error(`The API exited during start: ${exit}`);
    try {
      const response = await fetch(`${baseURL}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`The API did not answer on ${baseURL} within 30 s`);
}

/**
 * Starts the real OAM API on a free port with a temporary data folder (nothing is built here:
 * the GUI was built by the test script), creates an operator and a viewer, and logs each role
 * in once so that the flows start logged in. Returns the teardown.
 */
export default async function globalSetup() {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'ipfe-e2e-'));
  const baseURL = `http://127.0.0.1:${port}`;
  let output = '';
  let exit: string | null = null;
  const api = spawn('npx', ['tsx', 'apps/api/src/server.ts'], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      IPFE_DATA_DIR: dataDir,
      IPFE_ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
    },
  });
  api.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  api.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  api.on('exit', (code, signal) => (exit = `code ${code} signal ${signal}\n${output}`));

  const stop = async () => {
    if (exit === null && api.pid) {
      try {
        process.kill(-api.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await waitForHealth(baseURL, () => exit);
    process.env.E2E_BASE_URL = baseURL;
    mkdirSync(authFile('admin').replace(/[^/]+$/, ''), { recursive: true });
    const admin = await request.newContext({ baseURL });
    const login = await admin.post('/api/session', {
      data: { username: ADMIN.name, password: ADMIN.password },
    });
    if (!login.ok()) throw new Error(`admin login failed: ${login.status()} ${await login.text()}`);
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    for (const user of USERS) {
      const created = await admin.post('/api/users', {
        headers: { 'x-csrf-token': csrfToken },
        data: { name: user.name, password: user.password, role: user.role },
      });
      if (!created.ok()) throw new Error(`creating ${user.name} failed: ${await created.text()}`);
    }
    await admin.storageState({ path: authFile('admin') });
    await admin.dispose();
    for (const user of USERS) {
      const context = await request.newContext({ baseURL });
      const response = await context.post('/api/session', {
        data: { username: user.name, password: user.password },
      });
      if (!response.ok()) throw new Error(`${user.name} login failed: ${await response.text()}`);
      await context.storageState({ path: authFile(user.role) });
      await context.dispose();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}
