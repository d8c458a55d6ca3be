/**
 * Processes of the `ha` part: the OAM server (apps/api/src/server.ts) as a process of its own on
 * a loopback address, on SQLite or on a PostgreSQL URL; and a plain PostgreSQL 15 with its
 * durable defaults (fsync and synchronous_commit on, as SQLite's `synchronous = FULL` is), made as
 * apps/api/test/postgres-server.ts makes the tests' one: initdb as `postgres` via runuser in a
 * temporary folder, listening on 127.0.0.1. Everything is removed on any exit (lib/cleanup.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HealthView } from '@ipfe/schema';
import pg from 'pg';
import { freePort } from '../../apps/api/test/postgres-server.ts';
import { onCleanup } from './cleanup.ts';
import { ROOT } from './results.ts';
import { until } from './stats.ts';

const PG_BIN = '/usr/lib/postgresql/15/bin';
export const OAM_PASSWORD = 'bench-admin-password';

export interface OamOptions {
  name: string;
  host: string;
  port: number;
  dataDir: string;
  /** Unset: the OAM's own SQLite file in dataDir. */
  databaseUrl?: string;
  env?: Record<string, string>;
  log: (line: string) => void;
}

export interface OamProcess {
  options: OamOptions;
  base: string;
  /** Its /api/health, or null when it does not answer within `timeoutMs`. */
  health(timeoutMs?: number): Promise<HealthView | null>;
  /** SIGKILL of its process group, now (as a machine that dies). */
  kill(): void;
  exited: Promise<void>;
  /** SIGTERM (the app closes, its cluster session ends), SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** The last lines it printed. */
  output(): string;
}

/** Starts one OAM and waits until its /api/health answers. */
export async function startOam(options: OamOptions): Promise<OamProcess> {
  mkdirSync(options.dataDir, { recursive: true });
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/api/src/server.ts')], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOST: options.host,
      PORT: String(options.port),
      IPFE_DATA_DIR: options.dataDir,
      IPFE_DATABASE_URL: options.databaseUrl ?? '',
      IPFE_ADMIN_PASSWORD: OAM_PASSWORD,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...options.env,
    },
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let killed = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (!killed) options.log(`${options.name} exited (${code ?? signal}): ${output.slice(-800)}`);
      resolve();
    }),
  );
  const killGroup = () => {
    killed = true;
    try {
      if (child.exitCode === null && child.signalCode === null && child.pid)
        process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  };
  const remove = onCleanup(options.name, killGroup);
  const base = `http://${options.host}:${options.port}`;
  const health = async (timeoutMs = 1000): Promise<HealthView | null> => {
    try {
      const response = await fetch(`${base}/api/health`, {
        signal: AbortSignal.timeout(timeoutMs),
      });
      return response.ok ? ((await response.json()) as HealthView) : null;
    } catch {
      return null;
    }
  };
  const oam: OamProcess = {
    options,
    base,
    health,
    kill: remove,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        killed = true;
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      }
      remove();
    },
  };
  try {
    await until(
      `${options.name} to answer /api/health`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${options.name} exited: ${output}`);
        return health();
      },
      60_000,
      100,
    );
  } catch (err) {
    remove();
    throw err;
  }
  return oam;
}

export interface BenchPostgres {
  port: number;
  /** The superuser's URL of database `db`. */
  url(db: string): string;
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** A fresh PostgreSQL 15 cluster in `dir` (made here; its parent must be traversable), defaults kept. */
export async function startPostgres(dir: string): Promise<BenchPostgres> {
  const password = 'bench-postgres-password';
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o700);
  chownSync(dir, uid, uid);
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`);
  chownSync(pwfile, uid, uid);
  const init = spawnSync(
    'runuser',
    [
      ...['-u', 'postgres', '--', `${PG_BIN}/initdb`, '-D', data, '-U', 'postgres'],
      ...['--pwfile', pwfile, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8'],
    ],
    { encoding: 'utf8' },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const server: ChildProcess = spawn(
    'runuser',
    [
      ...['-u', 'postgres', '--', `${PG_BIN}/postgres`, '-D', data, '-k', dir],
      ...['-h', '127.0.0.1', '-p', String(port), '-c', 'max_connections=200'],
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  server.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const killAll = onCleanup('postgres', () => {
    // runuser and the postmaster with its backends are one process group.
    try {
      if (server.exitCode === null && server.signalCode === null && server.pid)
        process.kill(-server.pid, 'SIGKILL');
    } catch {
      // gone
    }
  });
  const url = (db: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${db}`;
  const query = async (text: string) => {
    const client = new pg.Client({ connectionString: url('postgres') });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query(text);
    } finally {
      await client.end().catch(() => {});
    }
  };
  try {
    await until(
      'PostgreSQL to accept connections',
      async () => {
        if (server.exitCode !== null) throw new Error(`PostgreSQL exited: ${log}`);
        await query('select 1');
        return true;
      },
      30_000,
      100,
    );
  } catch (err) {
    killAll();
    throw err;
  }
  return {
    port,
    url,
    async createDatabase(name) {
      await query(`create database ${name}`);
      return url(name);
    },
    async stop() {
      // SIGINT to the postmaster itself is PostgreSQL's fast shutdown (runuser does not pass it on).
      const pidFile = join(data, 'postmaster.pid');
      if (existsSync(pidFile)) {
        try {
          process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGINT');
        } catch {
          // gone
        }
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      }
      killAll();
    },
  };
}
