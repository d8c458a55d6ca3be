import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnv } from '../src/env.ts';
import { login, startApp, testEngine } from './helpers.ts';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('environment', () => {
  it('applies the documented defaults', () => {
    expect(readEnv({})).toEqual({
      env: {
        HOST: '127.0.0.1',
        PORT: 8080,
        IPFE_DATA_DIR: './data',
        IPFE_SECURE_COOKIES: 'false',
        IPFE_STATUS_INTERVAL_MS: 1000,
        IPFE_AGENT_START_GRACE_MS: 15000,
        LOG_LEVEL: 'info',
      },
    });
  });

  it('names every bad variable on its own line', () => {
    expect(
      readEnv({
        PORT: '70000',
        LOG_LEVEL: 'loud',
        IPFE_ADMIN_PASSWORD: 'short',
        IPFE_AGENT_TOKEN: 'x',
        IPFE_AGENT_START_GRACE_MS: '15s',
        LOG_FORMAT: 'yaml',
      }),
    ).toEqual({
      problems: [
        'PORT: must be a TCP port number (0–65535)',
        'IPFE_ADMIN_PASSWORD: must be at least 8 characters',
        'IPFE_AGENT_TOKEN: must be 32–256 characters of letters, digits and ._~+/=-',
        'IPFE_AGENT_START_GRACE_MS: must be a whole number of milliseconds from 0 to 600000',
        'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
        'LOG_FORMAT: must be json or pretty',
      ],
    });
  });

  it('stops the server at start with exit code 2 and one line per bad value', async () => {
    const serverFile = new URL('../src/server.ts', import.meta.url).pathname;
    const failure = await run('npx', ['tsx', serverFile], {
      env: { ...process.env, PORT: 'abc', LOG_LEVEL: 'x', LOG_FORMAT: 'text' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect('code' in failure && failure.code).toBe(2);
    expect((failure as { stderr: string }).stderr.trim().split('\n')).toEqual([
      'ipfe-oam: PORT: must be a TCP port number (0–65535)',
      'ipfe-oam: LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
      'ipfe-oam: LOG_FORMAT: must be json or pretty',
    ]);
  });
});

describe('log format', () => {
  /** Starts the real server with its stdout on a pipe, makes one logged request, returns the log lines. */
  async function logOfOneRequest(logFormat: string | undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'ipfe-log-format-'));
    dirs.push(dir);
    const serverFile = new URL('../src/server.ts', import.meta.url).pathname;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      IPFE_DATA_DIR: dir,
      PORT: '0',
      LOG_LEVEL: 'info',
    };
    delete env.LOG_FORMAT;
    if (logFormat) env.LOG_FORMAT = logFormat;
    const child = spawn(process.execPath, ['--import', 'tsx', serverFile], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    const seen = (test: (line: string) => boolean) =>
      new Promise<string>((resolveLine, reject) => {
        const found = lines.find(test);
        if (found) return resolveLine(found);
        const onLine = (line: string) => {
          if (!test(line)) return;
          reader.off('line', onLine);
          resolveLine(line);
        };
        reader.on('line', onLine);
        child.once('exit', (code) =>
          reject(new Error(`server exited (${code}): ${lines.join('\n')}`)),
        );
      });
    const reader = createInterface({ input: child.stdout });
    reader.on('line', (line) => lines.push(line));
    try {
      const listening = await seen((line) => line.startsWith('IPFE OAM listening on '));
      const url = /listening on (\S+)/.exec(listening)![1];
      const answer = await fetch(`${url}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'nobody', password: 'not-the-password' }),
      });
      expect(answer.status).toBe(401);
      await seen((line) => line.includes('401'));
      return lines;
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }

  it('writes one JSON object a line when stdout is not a terminal', async () => {
    const lines = await logOfOneRequest(undefined);
    const entries = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    expect(entries).toContainEqual(
      expect.objectContaining({ msg: 'request completed', res: { statusCode: 401 } }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        msg: 'incoming request',
        req: expect.objectContaining({ method: 'POST', url: '/api/session' }),
      }),
    );
  });

  it('writes readable lines, one per request start and end, with LOG_FORMAT=pretty', async () => {
    const lines = await logOfOneRequest('pretty');
    expect(lines.some((line) => line.startsWith('{'))).toBe(false);
    expect(lines).toContainEqual(expect.stringMatching(/INFO: → POST \/api\/session \(req-\w+\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/INFO: ← 401 in \d+ ms \(req-\w+\)$/));
  });
});

describe('first start', () => {
  it('creates admin with a generated password, printed once and kept in a 0600 file, plus 0600 secrets', async () => {
    const { prepareDataDir, ensureAdmin } = await import('../src/bootstrap.ts');
    const dir = mkdtempSync(join(tmpdir(), 'ipfe-first-start-'));
    dirs.push(dir);
    const data = prepareDataDir(dir, undefined);
    const t = await startApp({ dir, databaseFile: data.databaseFile });
    await t.app.usersRepository.delete('admin');
    const lines: string[] = [];
    await ensureAdmin(t.app.usersRepository, dir, undefined, (l) => lines.push(l));
    const password = readFileSync(join(dir, 'initial-admin-password'), 'utf8').trim();
    expect(lines).toEqual([
      `Created user admin with password ${password} (also in ${join(dir, 'initial-admin-password')})`,
    ]);
    for (const file of ['initial-admin-password', 'session-secret', 'agent-token']) {
      expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
    }
    await login(t.app, 'admin', password);
    await ensureAdmin(t.app.usersRepository, dir, undefined, (l) => lines.push(l));
    expect(lines).toHaveLength(1);
    expect(prepareDataDir(dir, undefined)).toEqual(data);
    await t.close();
  });
});

describe('OpenAPI and health', () => {
  it('serves the OpenAPI document generated from the schemas, and the docs UI', async () => {
    const t = await startApp();
    const document = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(document.openapi).toMatch(/^3\./);
    const insert = document.paths['/api/target-sets'].post;
    expect(
      insert.requestBody.content['application/json'].schema.properties.deleteAgeSeconds,
    ).toMatchObject({
      minimum: 10,
      maximum: 3110400,
      default: 600,
    });
    expect((await t.app.inject({ method: 'GET', url: '/api/docs/' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).json()).toEqual({
      status: 'ok',
      revision: 0,
      store: testEngine(),
      role: 'leader',
    });
    await t.close();
  });
});
