import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  addUser,
  login,
  PASSWORD,
  seedPrerequisites,
  type Client,
} from './helpers.ts';
import { useTestApp } from './test-app.ts';

let clients: Record<'viewer' | 'operator' | 'admin', Client>;
const logLines: string[] = [];
const TOKEN = 'secret-agent-token-that-must-never-be-logged-0123';

// The users log in before anything is configured: started here, logged in below.
const { t } = useTestApp({
  per: 'file',
  login: false,
  agentToken: TOKEN,
  agentSync: { enabled: true, pollIntervalMs: 200, backoffMinMs: 50, backoffMaxMs: 100 },
  logger: {
    level: 'trace',
    stream: new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  },
  loginFailuresPerUser: 3,
});

beforeAll(async () => {
  await t.app.ready();
  await addUser(t.app, 'vera', 'viewer');
  await addUser(t.app, 'otto', 'operator');
  clients = {
    viewer: await login(t.app, 'vera', PASSWORD),
    operator: await login(t.app, 'otto', PASSWORD),
    admin: await login(t.app),
  };
  await seedPrerequisites(clients.admin);
});

/** Every route of the OpenAPI document, with its path parameters filled in. */
async function routes(): Promise<{ method: string; url: string }[]> {
  const document = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  const sample: Record<string, string> = { key: 'mp1', rev: '1', name: 'vera', slot: 'A1' };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({
      method: method.toUpperCase(),
      url: path.replace(/\{(\w+)\}/g, (_, p: string) => sample[p] ?? '1'),
    })),
  );
}

const PUBLIC = new Set(['POST /api/session', 'GET /api/session', 'GET /api/health']);
const ADMIN_ONLY = /^\/api\/(users|audit|tokens)/;
/** Every user's own API tokens: any role creates, lists and revokes them. */
const OWN_TOKENS = /^\/api\/users\/me\/tokens/;

describe('who may call what: every route of the OpenAPI document, with each role', () => {
  it('answers 401 without a session to every route but login, who is logged in, and health', async () => {
    const all = await routes();
    expect(all.length).toBeGreaterThan(25);
    for (const { method, url } of all) {
      if (PUBLIC.has(`${method} ${url}`)) continue;
      const response = await t.app.inject({
        method: method as 'GET',
        url,
        payload: method === 'GET' || method === 'DELETE' ? undefined : {},
      });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('answers 403 to a viewer on every write route, and an operator on users and audit', async () => {
    for (const { method, url } of await routes()) {
      if (PUBLIC.has(`${method} ${url}`) || url === '/api/session') continue;
      if (OWN_TOKENS.test(url)) {
        const own = await clients.viewer.request({
          method: method as 'GET',
          url,
          payload: method === 'POST' ? {} : undefined,
        });
        expect(own.statusCode, `viewer ${method} ${url}`).not.toBe(403);
        continue;
      }
      const write = method !== 'GET';
      const viewer = await clients.viewer.request({
        method: method as 'GET',
        url,
        payload: write && method !== 'DELETE' ? {} : undefined,
      });
      if (write || ADMIN_ONLY.test(url))
        expect(viewer.statusCode, `viewer ${method} ${url}`).toBe(403);
      else expect(viewer.statusCode, `viewer ${method} ${url}`).not.toBe(403);
      if (ADMIN_ONLY.test(url)) {
        const operator = await clients.operator.request({
          method: method as 'GET',
          url,
          payload: write && method !== 'DELETE' ? {} : undefined,
        });
        expect(operator.statusCode, `operator ${method} ${url}`).toBe(403);
      }
    }
  });

  it('does not let a user raise their own role', async () => {
    const own = await clients.operator.request({
      method: 'PUT',
      url: '/api/users/otto',
      payload: { role: 'admin' },
    });
    expect(own.statusCode).toBe(403);
    expect((await t.app.usersRepository.find('otto'))?.role).toBe('operator');
  });
});

describe('audit log', () => {
  it('records logins, failed logins, brute force (429) and every change with who and from where', async () => {
    for (let i = 0; i < 4; i++) {
      await t.app.inject({
        method: 'POST',
        url: '/api/session',
        payload: { username: 'vera', password: 'wrong-password' },
      });
    }
    await clients.operator.post('/api/peer-node-groups', {
      name: 'east',
      members: ['10.1.0.0/16'],
    });
    const audit = (await clients.admin.get('/api/audit?limit=1000')).json().items as {
      user: string;
      action: string;
      target: string;
      status: number;
      address: string;
      detail: string | null;
    }[];
    expect(audit[0]).toMatchObject({
      user: 'otto',
      action: 'post',
      target: '/api/peer-node-groups',
      status: 201,
      address: '127.0.0.1',
    });
    expect(audit[0]!.detail).toMatch(/^revision \d+$/);
    const failures = audit.filter((a) => a.user === 'vera' && a.action === 'login-failed');
    expect(failures.map((f) => f.status)).toEqual([429, 401, 401, 401]);
    expect(audit.some((a) => a.user === 'admin' && a.action === 'login' && a.status === 200)).toBe(
      true,
    );
    expect((await clients.operator.get('/api/audit')).statusCode).toBe(403);
  });
});

describe('headers and secrets', () => {
  it('sends a strict Content-Security-Policy and the usual security headers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/health' });
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('sends the same security headers on every answer: reads, errors, unknown routes', async () => {
    const expected = {
      'content-security-policy':
        "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;" +
        "font-src 'self';connect-src 'self';object-src 'none';base-uri 'self';" +
        "form-action 'self';frame-ancestors 'none'",
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-frame-options': 'SAMEORIGIN',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    const answers = [
      await clients.viewer.get('/api/target-sets'),
      await clients.viewer.get('/api/target-sets'), // the list's bytes, made once, sent again
      await t.app.inject({ method: 'GET', url: '/api/options' }), // 401
      await clients.viewer.post('/api/xsi-networks', { name: 'x', cidr: '10.9.0.0/24' }), // 403
      await clients.viewer.get('/api/nothing-here'), // 404
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 401, 403, 404]);
    for (const answer of answers) {
      expect(answer.headers).toMatchObject(expected);
      expect(answer.headers['strict-transport-security']).toBeUndefined();
      expect(answer.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('never writes the agent token or a password to the log', async () => {
    // Pushes to the (absent) agents and polls have run with the token; logins with passwords.
    await new Promise((r) => setTimeout(r, 600));
    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(1000);
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(ADMIN_PASSWORD);
    expect(log).not.toContain(PASSWORD);
  });
});
