import { spawn, type ChildProcess } from 'node:child_process';
import type { HealthView } from '@ipfe/schema';
import { ADMIN_PASSWORD } from './helpers.ts';

const serverTs = new URL('../src/server.ts', import.meta.url).pathname;

/** An OAM as operators run it: its own Node process, over HTTP on a loopback address. */
export interface OamProcess {
  base: string;
  child: ChildProcess;
  /** The end of what it logged (warnings and up), requests' own lines left out. */
  logs(): string;
  /** Its /api/health, or null while it does not answer. */
  health(): Promise<HealthView | null>;
}

export interface OamProcessOptions {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string;
  agentToken: string;
  env?: Record<string, string>;
}

export function spawnOam(options: OamProcessOptions): OamProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', serverTs], {
    cwd: new URL('..', import.meta.url).pathname,
    env: {
      ...process.env,
      HOST: options.host,
      PORT: String(options.port),
      IPFE_DATA_DIR: options.dataDir,
      IPFE_DATABASE_URL: options.databaseUrl,
      IPFE_ADMIN_PASSWORD: ADMIN_PASSWORD,
      IPFE_AGENT_TOKEN: options.agentToken,
      IPFE_STATUS_INTERVAL_MS: '200',
      IPFE_AGENT_START_GRACE_MS: '0',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  const keep = (chunk: Buffer) => {
    const lines = chunk
      .toString()
      .split('\n')
      .filter((l) => l && !l.includes('"reqId"'));
    logs = (logs + lines.map((l) => `${l.slice(0, 600)}\n`).join('')).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const base = `http://${options.host}:${options.port}`;
  return {
    base,
    child,
    logs: () => logs,
    async health() {
      try {
        const response = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(2000) });
        return response.ok ? ((await response.json()) as HealthView) : null;
      } catch {
        return null;
      }
    },
  };
}

export interface HttpSession {
  status: number;
  cookie: string;
  csrf: string;
}

/** POST /api/session over HTTP: the session cookie and CSRF token a browser would keep. */
export async function postSession(
  base: string,
  username = 'admin',
  password = ADMIN_PASSWORD,
): Promise<HttpSession> {
  const response = await fetch(`${base}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const body = (await response.json()) as { csrfToken?: string };
  return { status: response.status, cookie, csrf: body.csrfToken ?? '' };
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** One request of a logged-in operator to the OAM at `base`; JSON both ways. */
export async function call(
  base: string,
  session: HttpSession | null,
  method: string,
  path: string,
  options: { body?: unknown; ifMatch?: string; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (session) Object.assign(headers, { cookie: session.cookie, 'x-csrf-token': session.csrf });
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : null,
  };
}

/** GET the entity, then PUT `body` with its ETag. */
export async function edit(base: string, session: HttpSession, path: string, body: unknown) {
  const current = await call(base, session, 'GET', path);
  return call(base, session, 'PUT', path, { body, ifMatch: current.headers.get('etag') ?? '' });
}
