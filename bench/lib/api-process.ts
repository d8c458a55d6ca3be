import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { onCleanup } from './cleanup.ts';
import { LineDriver } from './driver.ts';
import { ROOT } from './results.ts';

export const ADMIN_PASSWORD = 'bench-admin-password';

/** bench/drivers/api-server.ts as a process of its own, removed on any exit. */
export async function startApiServer(options: {
  host: string;
  port: number;
  barePort: number;
  webRoot?: string;
  profileDir?: string;
}) {
  const child = spawn(
    process.execPath,
    [
      ...(options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', options.profileDir] : []),
      '--import',
      'tsx',
      join(ROOT, 'bench/drivers/api-server.ts'),
      options.host,
      String(options.port),
      String(options.barePort),
      options.webRoot ?? '',
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, BENCH_ADMIN_PASSWORD: ADMIN_PASSWORD, NODE_ENV: 'production' },
    },
  );
  const kill = onCleanup('api server', () => {
    try {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  });
  const driver = new LineDriver(child);
  await driver.ready(60_000);
  return {
    driver,
    base: `http://${options.host}:${options.port}`,
    bare: `http://${options.host}:${options.barePort}`,
    /** A clean stop (SIGTERM: the app closes, a CPU profile gets written). */
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      }
      kill();
    },
  };
}
