import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './results.ts';

/** What autocannon measured of one URL. */
export interface Cannon {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** autocannon on `url` with `connections` connections for `seconds`, as the logged-in `cookie`. */
export function autocannon(
  url: string,
  cookie: string,
  seconds: number,
  connections: number,
): Promise<Cannon> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      join(ROOT, 'node_modules/.bin/autocannon'),
      ['-c', String(connections), '-d', String(seconds), '-j', '-H', `cookie=${cookie}`, url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
    child.on('exit', () => {
      clearTimeout(timer);
      try {
        const r = JSON.parse(out) as {
          requests: { average: number };
          latency: { p50: number; p99: number };
          non2xx: number;
          errors: number;
        };
        resolve({
          rps: r.requests.average,
          p50Ms: r.latency.p50,
          p99Ms: r.latency.p99,
          non2xx: r.non2xx,
          errors: r.errors,
        });
      } catch {
        reject(new Error(`autocannon: ${err.slice(-500) || out.slice(0, 500)}`));
      }
    });
  });
}
