import { describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { errorBodySchema } from '@ipfe/schema';
import { SESSION_COOKIE } from '../src/plugins/auth.ts';
import { addUser, login, PASSWORD } from './helpers.ts';
import { useTestApp } from './test-app.ts';

interface Response {
  description: string;
  content?: Record<string, { schema: { $ref?: string } }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, string>> };
}

const PUBLIC = ['GET /api/health', 'POST /api/session', 'GET /api/session'];
/** The public reads take no input and never fail but for a 500 (.redocly.lint-ignore.yaml). */
const NO_4XX = ['GET /api/health', 'GET /api/session'];

const { t } = useTestApp({ per: 'file' });

async function documentOf(): Promise<Document> {
  return (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
}

async function operations() {
  const document = await documentOf();
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      operation,
    })),
  );
}

/** The error codes an error answer of the document names: "CODE: meaning. CODE: meaning". */
const codesOf = (response: Response) =>
  [...response.description.matchAll(/\b([A-Z_]{3,}): /g)].map((m) => m[1]);

/** A request to the operation: its path parameters filled in, and no body. */
const requestOf = (method: string, path: string, key: string): InjectOptions => ({
  method: method as InjectOptions['method'],
  url: path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === 'slot' ? 'A1' : name === 'rev' ? '7' : key,
  ),
});

describe('the OpenAPI document, as a client generator reads it', () => {
  it('names every operation with a stable operationId and says what it does', async () => {
    const all = await operations();
    expect(all.map((o) => `${o.name} ${o.operation.operationId}`)).toEqual([
      'GET /api/health getHealth',
      'GET /api/oams listOams',
      'POST /api/session login',
      'GET /api/session getSession',
      'DELETE /api/session logout',
      'GET /api/options getOptions',
      'PUT /api/options editOptions',
      'GET /api/options/snmp-traps getSnmpTraps',
      'PUT /api/options/snmp-traps editSnmpTraps',
      'GET /api/xsi-networks listXsiNetworks',
      'POST /api/xsi-networks insertXsiNetwork',
      'GET /api/xsi-networks/{key} getXsiNetwork',
      'PUT /api/xsi-networks/{key} editXsiNetwork',
      'DELETE /api/xsi-networks/{key} deleteXsiNetwork',
      'GET /api/app-servers listApplicationServers',
      'POST /api/app-servers insertApplicationServer',
      'GET /api/app-servers/{key} getApplicationServer',
      'PUT /api/app-servers/{key} editApplicationServer',
      'DELETE /api/app-servers/{key} deleteApplicationServer',
      'GET /api/peer-node-groups listPeerNodeGroups',
      'POST /api/peer-node-groups insertPeerNodeGroup',
      'GET /api/peer-node-groups/{key} getPeerNodeGroup',
      'PUT /api/peer-node-groups/{key} editPeerNodeGroup',
      'DELETE /api/peer-node-groups/{key} deletePeerNodeGroup',
      'GET /api/target-sets listTargetSets',
      'POST /api/target-sets insertTargetSet',
      'GET /api/target-sets/{key} getTargetSet',
      'PUT /api/target-sets/{key} editTargetSet',
      'DELETE /api/target-sets/{key} deleteTargetSet',
      'GET /api/revisions listRevisions',
      'GET /api/revisions/{rev} getRevision',
      'GET /api/revisions/{rev}/diff diffRevisions',
      'POST /api/revisions/{rev}/rollback rollbackToRevision',
      'GET /api/export exportConfiguration',
      'POST /api/import/source-csv/preview previewSourceCsvImport',
      'POST /api/import/source-csv importSourceCsv',
      'GET /api/export/source-csv exportSourceCsv',
      'GET /api/users listUsers',
      'POST /api/users insertUser',
      'GET /api/users/{name} getUser',
      'PUT /api/users/{name} editUser',
      'DELETE /api/users/{name} deleteUser',
      'GET /api/users/me/tokens listOwnApiTokens',
      'POST /api/users/me/tokens createOwnApiToken',
      'DELETE /api/users/me/tokens/{id} revokeOwnApiToken',
      'GET /api/tokens listApiTokens',
      'DELETE /api/tokens/{id} revokeApiToken',
      'POST /api/config/plan planConfiguration',
      'PUT /api/config applyConfiguration',
      'GET /api/ipfe listIpfeSlots',
      'GET /api/ipfe/{slot}/status getAgentStatus',
      'GET /api/alarms listAlarms',
      'GET /api/measurements getMeasurements',
      'GET /api/audit listAuditEntries',
    ]);
    for (const { name, operation } of all) expect(operation.summary, name).toMatch(/\w{3}/);
  });

  it('declares how each operation authenticates: public, the session cookie, plus CSRF on a change', async () => {
    const document = await documentOf();
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/session',
      payload: { username: 'admin', password: 'admin-secret-1' },
    });
    // The cookie and header the schemes name are the ones the server sets and checks.
    expect(String(answer.headers['set-cookie'])).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
    expect(document.components.securitySchemes).toMatchObject({
      sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
      csrfToken: { type: 'apiKey', in: 'header', name: 'x-csrf-token' },
      apiToken: { type: 'http', scheme: 'bearer' },
    });
    for (const { name, method, operation } of await operations()) {
      const expected = PUBLIC.includes(name)
        ? []
        : method === 'GET'
          ? [{ sessionCookie: [] }, { apiToken: [] }]
          : [{ sessionCookie: [], csrfToken: [] }, { apiToken: [] }];
      expect(operation.security, name).toEqual(expected);
    }
  });

  it('gives every operation its 4xx answers, each with the one error shape', async () => {
    for (const { name, operation } of await operations()) {
      const errors = Object.entries(operation.responses).filter(([status]) => +status >= 400);
      if (!NO_4XX.includes(name)) {
        expect(
          errors.some(([status]) => status.startsWith('4')),
          name,
        ).toBe(true);
      }
      for (const [status, response] of errors) {
        expect(response.content?.['application/json']?.schema, `${name} ${status}`).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        });
        expect(codesOf(response).length, `${name} ${status}`).toBeGreaterThan(0);
      }
    }
  });

  it('documents every error the API answers: nobody logged in, a viewer, an admin with missing keys', async () => {
    await addUser(t.app, 'openapi-viewer', 'viewer');
    const viewer = await login(t.app, 'openapi-viewer', PASSWORD);
    const admin = await login(t.app);
    const anonymous = { request: (opts: InjectOptions) => t.app.inject(opts) };
    const noCsrf = {
      request: (opts: InjectOptions) =>
        t.app.inject({ ...opts, headers: { cookie: admin.cookie } }),
    };
    const all = await operations();
    // Logging out last: the admin's session serves every other request first.
    const ordered = [
      ...all.filter((o) => o.name !== 'DELETE /api/session'),
      ...all.filter((o) => o.name === 'DELETE /api/session'),
    ];
    const seen = new Set<string>();
    for (const [who, client] of [
      ['nobody', anonymous],
      ['admin without x-csrf-token', noCsrf],
      ['viewer', viewer],
      ['admin', admin],
    ] as const) {
      for (const { name, method, path, operation } of ordered) {
        const answer = await client.request(requestOf(method, path, 'nothing-by-this-name'));
        const status = String(answer.statusCode);
        const documented = operation.responses[status];
        expect(documented, `${who}: ${name} answered ${status} ${answer.body}`).toBeDefined();
        if (answer.statusCode < 400) continue;
        const body = errorBodySchema.parse(answer.json());
        expect(codesOf(documented!), `${who}: ${name}`).toContain(body.error.code);
        seen.add(body.error.code);
      }
    }
    // The sweep reached the checks it is meant to: authentication, CSRF, role, validation, lookup.
    expect([...seen]).toEqual(
      expect.arrayContaining(['UNAUTHENTICATED', 'CSRF', 'FORBIDDEN', 'VALIDATION', 'NOT_FOUND']),
    );
  });

  it('asks for If-Match where a change needs it, and documents the 428 without it', async () => {
    const { operation } = (await operations()).find((o) => o.name === 'PUT /api/options')!;
    expect(operation).toMatchObject({
      parameters: expect.arrayContaining([
        expect.objectContaining({ name: 'If-Match', in: 'header', required: true }),
      ]),
    });
    const admin = await login(t.app);
    const options = await admin.get('/api/options');
    const answer = await admin.put('/api/options', options.json());
    expect(answer.statusCode).toBe(428);
    expect(codesOf(operation.responses['428']!)).toEqual(['PRECONDITION_REQUIRED']);
  });
});
