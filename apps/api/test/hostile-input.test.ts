import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leastLoadTargetSet, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp({
  per: 'file',
  bodyLimitBytes: 64 * 1024,
  seed: true,
  setup: (admin) => admin.post('/api/target-sets', leastLoadTargetSet()),
});

const send = (
  method: 'POST' | 'PUT',
  url: string,
  payload: string,
  headers: Record<string, string> = {},
) =>
  admin.request({
    method,
    url,
    payload,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('hostile input', () => {
  it('answers 413 to an oversize body and changes nothing', async () => {
    const before = await snapshot(t.app);
    const response = await send(
      'POST',
      '/api/xsi-networks',
      JSON.stringify({ name: 'x', cidr: '10.0.0.0/8', pad: 'x'.repeat(100_000) }),
    );
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('answers 415 to a body that is not JSON', async () => {
    const response = await admin.request({
      method: 'POST',
      url: '/api/xsi-networks',
      payload: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it.each([
    ['PUT', '/api/options', '{"toString":""}'],
    ['POST', '/api/xsi-networks', '{"name":"x","cidr":"10.9.0.0/16","valueOf":1}'],
    ['POST', '/api/xsi-networks', '{"name":"x","cidr":"10.9.0.0/16","constructor":{}}'],
    ['POST', '/api/peer-node-groups', '{"name":"g","members":["10.2.0.0/16"],"hasOwnProperty":[]}'],
    ['POST', '/api/app-servers', '{"name":"s","addresses":["127.1.9.9"],"__proto__":{"x":1}}'],
  ] as const)('answers 4xx, naming what is wrong, to %s %s %s', async (method, url, payload) => {
    const before = await snapshot(t.app);
    const etag = method === 'PUT' ? ((await admin.get(url)).headers.etag as string) : undefined;
    const response = await send(method, url, payload, etag ? { 'if-match': etag } : {});
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(response.json().error.message).toMatch(/\w/);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it.each(['{', '{"name": "x",}', 'null', '[]', '"text"', '1e999', ''])(
    'answers 400 to the body %j',
    async (payload) => {
      const response = await send('POST', '/api/xsi-networks', payload);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({
        code: expect.stringMatching(/^(VALIDATION|INVALID_JSON)$/),
        fields: expect.any(Array),
      });
    },
  );

  it('refuses prototype-pollution keys without touching any object', async () => {
    const response = await send(
      'POST',
      '/api/xsi-networks',
      '{"name":"p","cidr":"10.0.0.0/8","__proto__":{"admin":true}}',
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toBe(
      'The body has a "__proto__" or "constructor.prototype" key, which is refused (it could change the prototype of objects)',
    );
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('tells a body that is not JSON, an empty one and a prototype key apart, and reads JSON with a charset', async () => {
    const messageOf = async (payload: string, headers?: Record<string, string>) => {
      const response = await send('POST', '/api/xsi-networks', payload, headers);
      return [response.statusCode, response.json().error?.message ?? response.json().name];
    };
    expect(await messageOf('{"name":')).toEqual([400, 'The body is not valid JSON']);
    expect(await messageOf('')).toEqual([
      400,
      'The body is empty but Content-Type is application/json',
    ]);
    expect(await messageOf('{"constructor":{"prototype":{"x":1}},"name":"q"}')).toEqual([
      400,
      'The body has a "__proto__" or "constructor.prototype" key, which is refused (it could change the prototype of objects)',
    ]);
    expect(
      await messageOf('{"name":"charset-net","cidr":"10.77.0.0/16"}', {
        'content-type': 'application/json; charset=utf-8',
      }),
    ).toEqual([201, 'charset-net']);
  });

  it('answers a JSON 404 to an unknown route', async () => {
    const response = await admin.get('/api/nothing-here');
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('NOT_FOUND');
  });

  it('never answers 5xx to random Target Set bodies, and a rejection never changes the configuration', async () => {
    const value = fc.oneof(
      fc.integer({ min: -100000, max: 100000 }),
      fc.double(),
      fc.string(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom(
        '127.1.0.100',
        '127.1.1.1',
        '2001:db8::1',
        'A1',
        'B2',
        'hash',
        'leastLoad',
        'activeActive',
        'ipv4',
        'ipv6',
      ),
    );
    const mutation = fc.record({
      path: fc.constantFrom(
        'number',
        'family',
        'algorithm',
        'deleteAgeSeconds',
        'primary',
        'primary.address',
        'primary.activeIpfe',
        'secondary',
        'servers',
        'servers.0',
        'servers.0.weight',
        'servers.0.address',
        'leastLoad.mpsFactor',
        'leastLoad',
        'protocols',
        'serving',
        'activeActiveIpfes',
        'extra',
      ),
      value: fc.oneof(
        value,
        fc.array(value, { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 5 }), value, { maxKeys: 3 }),
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const body: Record<string, unknown> = structuredClone(
          leastLoadTargetSet({ number: 2, primary: { address: '127.1.0.101' } }),
        );
        for (const { path, value: v } of mutations) setPath(body, path.split('.'), v);
        const before = await snapshot(t.app);
        const response = await admin.post('/api/target-sets', body);
        expect(response.statusCode).toBeLessThan(500);
        if (response.statusCode >= 400) {
          const error = response.json().error;
          expect(error.fields.length + error.message.length).toBeGreaterThan(0);
          expect(await snapshot(t.app)).toEqual(before);
        } else {
          await admin.remove('/api/target-sets/2');
        }
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    [
      'NUL bytes and control characters',
      'IPFE,Options\u0000,\u0001\u0002\r\nIPFE,ListTsa,1,\u0000',
    ],
    ['a lone quote', 'IPFE,"Options,127.0.0.1'],
    ['a record of 100,000 cells', `IPFE,Options${',1'.repeat(100_000)}`],
    ['200,000 comment lines', '#\n'.repeat(200_000)],
    [
      'a ListTsa record for every number there is',
      Array.from({ length: 5000 }, (_, i) => `IPFE,ListTsa,${i},127.1.1.1,1`).join('\n'),
    ],
    [
      'invalid UTF-8',
      Buffer.from([0x49, 0x50, 0x46, 0x45, 0x2c, 0xff, 0xfe, 0xc3, 0x28]).toString('latin1'),
    ],
    [
      'prototype names as keywords and numbers',
      'IPFE,__proto__,constructor\nIPFE,ListTsa,__proto__,toString,valueOf',
    ],
  ])('answers an import of %s without a 5xx, committing nothing', async (_what, file) => {
    const before = await snapshot(t.app);
    for (const url of [
      '/api/import/source-csv/preview',
      '/api/import/source-csv/preview?format=source&createServers=true',
      `/api/import/source-csv?basedOn=${before.revisions}&format=source&createServers=true`,
      `/api/import/source-csv?basedOn=${before.revisions}`,
    ]) {
      const response = await admin.request({
        method: 'POST',
        url,
        payload: file,
        headers: { 'content-type': 'text/csv' },
      });
      expect(response.statusCode, url).toBeLessThan(500);
      if (response.statusCode === 200) {
        expect(response.json().problems.length, url).toBeGreaterThan(0);
        expect(response.json().problems.length, url).toBeLessThanOrEqual(101);
      }
    }
    expect(await snapshot(t.app)).toEqual(before);
  });
});

function setPath(target: Record<string, unknown>, path: string[], value: unknown) {
  let node: unknown = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (typeof record[key] !== 'object' || record[key] === null) record[key] = {};
    node = record[key];
  }
  if (typeof node === 'object' && node !== null)
    (node as Record<string, unknown>)[path[path.length - 1]!] = value;
}
