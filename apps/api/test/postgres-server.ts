import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const BIN = '/usr/lib/postgresql/15/bin';
export const POSTGRES_PASSWORD = 'ipfe-test-password';

/** A real PostgreSQL 15 of the test run: a fresh cluster in a temporary folder, on loopback. */
export interface PostgresServer {
  /** The superuser's URL of database `postgres`. */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function uidOf(user: string): number {
  return Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
}

/**
 * initdb as the `postgres` user (PostgreSQL refuses to run as root) into a folder it owns, then
 * `postgres` on 127.0.0.1 with fsync off (a test cluster need not survive a power cut). Password
 * authentication over TCP, so that a wrong password is refused as in production.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ipfe-pg-'));
  const uid = uidOf('postgres');
  chownSync(dir, uid, uid);
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${POSTGRES_PASSWORD}\n`);
  chownSync(pwfile, uid, uid);
  const asPostgres = (command: string, args: string[]) =>
    spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' });
  const init = asPostgres(`${BIN}/initdb`, [
    '-D',
    data,
    '-U',
    'postgres',
    '--pwfile',
    pwfile,
    '--auth-host=scram-sha-256',
    '--auth-local=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const server: ChildProcess = spawn(
    'runuser',
    [
      '-u',
      'postgres',
      '--',
      `${BIN}/postgres`,
      '-D',
      data,
      '-k',
      dir,
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=300',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  server.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const adminUrl = `postgres://postgres:${POSTGRES_PASSWORD}@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: adminUrl });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => {});
      if (server.exitCode !== null || Date.now() > deadline)
        throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    adminUrl,
    port,
    async stop() {
      // SIGINT is PostgreSQL's fast shutdown; sent to the postmaster itself, since runuser does not
      // pass SIGINT on (the run hung at its end waiting for it). SIGKILL if it is not gone in 10 s.
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(postmaster, name);
        } catch {
          // already gone
        }
      };
      signal('SIGINT');
      const forced = setTimeout(() => {
        signal('SIGKILL');
        server.kill('SIGKILL');
      }, 10_000);
      await exited;
      clearTimeout(forced);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** A fresh, empty database on the server: its URL, and how to drop it. */
export async function createDatabase(
  adminUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ipfe_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
