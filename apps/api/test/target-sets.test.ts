import { beforeEach, describe, expect, it } from 'vitest';
import { fieldsOf, leastLoadTargetSet, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp({ seed: true });

describe('POST /api/target-sets', () => {
  it('inserts a Least Load IPv4 Target Set with defaults and derived fields', async () => {
    const response = await admin.post('/api/target-sets', leastLoadTargetSet());
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toBe('/api/target-sets/1');
    expect(response.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(Number(response.headers['x-ipfe-revision'])).toBe(
      (await t.app.configRepository.latestInfo())!.number,
    );
    const body = response.json();
    expect(body).toMatchObject({
      number: 1,
      family: 'ipv4',
      protocols: 'both',
      disabled: false,
      initiatorSupport: false,
      deleteAgeSeconds: 600,
      algorithm: 'leastLoad',
      leastLoad: {
        mpsFactor: 50,
        connectionCountFactor: 50,
        allowedDeviation: 5,
        peerNodeAware: true,
        peerNodeThreshold: 1,
      },
      primary: { address: '127.1.0.100', activeIpfe: 'A1', standbyIpfe: 'A2' },
      secondary: null,
      warnings: [],
    });
    expect(body.servers[0]).toEqual({
      address: '127.1.1.1',
      secondaryAddress: null,
      description: '',
      weight: 100,
      appServer: 'mp1',
      initiatorPortRange: { start: 16384, end: 16895 },
      chancePct: 33.3,
    });
    expect((await t.app.configRepository.latestInfo())!.summary).toBe('Insert Target Set 1');
  });

  it('takes the lowest unused number when none is given', async () => {
    await admin.post('/api/target-sets', leastLoadTargetSet({ number: 1 }));
    await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ number: 3, primary: { address: '127.1.0.103' } }),
    );
    const response = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ primary: { address: '127.1.0.102' } }),
    );
    expect(response.json().number).toBe(2);
  });

  it('normalizes Fm/Fc on commit: 1/2 is saved as 33/67', async () => {
    const response = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ leastLoad: { mpsFactor: 1, connectionCountFactor: 2 } }),
    );
    expect(response.json().leastLoad).toMatchObject({ mpsFactor: 33, connectionCountFactor: 67 });
  });

  it('keeps a Hash Target Set’s Fm/Fc as typed, 0/0 included: the pair rule is Least Load’s', async () => {
    const response = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        algorithm: 'hash',
        leastLoad: { mpsFactor: 0, connectionCountFactor: 0 },
      }),
    );
    expect(response.statusCode).toBe(201);
    expect(response.json().leastLoad).toMatchObject({ mpsFactor: 0, connectionCountFactor: 0 });
    const edited = await admin.put(
      '/api/target-sets/1',
      leastLoadTargetSet({
        number: 1,
        algorithm: 'hash',
        leastLoad: { mpsFactor: 1, connectionCountFactor: 2 },
      }),
      response.headers.etag as string,
    );
    expect(edited.statusCode).toBe(200);
    expect(edited.json().leastLoad).toMatchObject({ mpsFactor: 1, connectionCountFactor: 2 });
  });

  it('refuses weight 70000 naming servers.0.weight, and changes nothing', async () => {
    await admin.post('/api/target-sets', leastLoadTargetSet());
    const before = await snapshot(t.app);
    const response = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        primary: { address: '127.1.0.101' },
        servers: [{ address: '127.1.1.1', weight: 70000 }],
      }),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION');
    expect(fieldsOf(response)).toEqual({
      'servers.0.weight': 'Weighting must be a whole number from 0 to 65535',
    });
    expect(await snapshot(t.app)).toEqual(before);
  });

  it.each([
    [
      'an address that is not an address',
      { primary: { address: '127.1.0.999' } },
      'primary.address',
      /IPv4 or IPv6 address/,
    ],
    [
      'a TSA off every XSI network',
      { primary: { address: '192.0.2.1' } },
      'primary.address',
      /must be on the XSI network/,
    ],
    [
      'an IPv6 TSA in an IPv4 Target Set',
      { primary: { address: '2001:db8::100' } },
      'primary.address',
      /not an IPv4 address/,
    ],
    [
      'an IP list row of the wrong family',
      { servers: [{ address: '2001:db8::1' }] },
      'servers.0.address',
      /not an IPv4 address/,
    ],
    [
      'a row that is no application server',
      { servers: [{ address: '127.1.9.9' }] },
      'servers.0.address',
      /not an application server address/,
    ],
    [
      'the same row twice',
      { servers: [{ address: '127.1.1.1' }, { address: '127.1.1.1' }] },
      'servers.1.address',
      /listed twice/,
    ],
    [
      'an unconfigured Active IPFE',
      { primary: { address: '127.1.0.100', activeIpfe: 'B1' } },
      'primary.activeIpfe',
      /Configure the IPFE address under IPFE › Configuration › Options/,
    ],
    [
      'a TSA that is a server address',
      { primary: { address: '127.1.1.1' } },
      'primary.address',
      /application server mp1/,
    ],
    [
      'all weights zero',
      { servers: [{ address: '127.1.1.1', weight: 0 }] },
      'servers',
      /at least one server needs a non-zero weight/,
    ],
    [
      'Fm = Fc = 0',
      { leastLoad: { mpsFactor: 0, connectionCountFactor: 0 } },
      'leastLoad.mpsFactor',
      /cannot both be 0/,
    ],
    ['Delete Age 9', { deleteAgeSeconds: 9 }, 'deleteAgeSeconds', /from 10 to 3110400/],
    ['an unknown field', { colour: 'red' }, 'colour', /not a field/],
    [
      'a derived field',
      { servers: [{ address: '127.1.1.1', chancePct: 100 }] },
      'servers.0.chancePct',
      /This field cannot be changed/,
    ],
    [
      'a secondary row without a secondary TSA',
      { servers: [{ address: '127.1.1.1', secondaryAddress: '2001:db8::1' }] },
      'servers.0.secondaryAddress',
      /no secondary address/,
    ],
    [
      'a secondary TSA without secondary rows',
      { secondary: { address: '2001:db8::100', activeIpfe: 'A2' } },
      'servers.0.secondaryAddress',
      /Required/,
    ],
  ])('refuses %s with a message at its field', async (_what, overrides, path, message) => {
    const before = await snapshot(t.app);
    const response = await admin.post('/api/target-sets', leastLoadTargetSet(overrides));
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)[path]).toMatch(message);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('accepts a secondary address whose rows are the same servers’ other addresses, and warns when it shares the Active IPFE', async () => {
    const response = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        secondary: { address: '2001:db8::100', activeIpfe: 'A1' },
        servers: [
          { address: '127.1.1.1', secondaryAddress: '2001:db8::1' },
          { address: '127.1.1.2', secondaryAddress: '2001:db8::2' },
        ],
      }),
    );
    expect(response.statusCode).toBe(201);
    expect(response.json().secondary).toEqual({
      address: '2001:db8::100',
      activeIpfe: 'A1',
      standbyIpfe: 'A2',
    });
    expect(response.json().warnings).toEqual([
      {
        path: 'secondary.activeIpfe',
        message:
          'should complement the Active IPFE to give SCTP dual-homed traffic an alternative path',
      },
    ]);
  });

  it("refuses a secondary row that is another server's address", async () => {
    const response = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        secondary: { address: '2001:db8::100', activeIpfe: 'A2' },
        servers: [{ address: '127.1.1.1', secondaryAddress: '2001:db8::2' }],
      }),
    );
    expect(fieldsOf(response)['servers.0.secondaryAddress']).toMatch(
      /not an address of application server mp1/,
    );
  });

  it('warns below the default Delete Age but saves', async () => {
    const response = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ deleteAgeSeconds: 300 }),
    );
    expect(response.statusCode).toBe(201);
    expect(response.json().warnings).toEqual([
      {
        path: 'deleteAgeSeconds',
        message: 'Reducing Delete Age below the default (600 s) is inadvisable',
      },
    ]);
  });

  it('allows identical or disjoint IP lists and refuses a partly overlapping one, naming the other Target Set', async () => {
    await admin.post('/api/target-sets', leastLoadTargetSet());
    const identical = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ primary: { address: '127.1.0.101' } }),
    );
    expect(identical.statusCode).toBe(201);
    const partial = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        primary: { address: '127.1.0.102' },
        servers: [{ address: '127.1.1.1' }],
      }),
    );
    expect(partial.statusCode).toBe(400);
    const messages = partial
      .json()
      .error.fields.map((f: { path: string; message: string }) => `${f.path}: ${f.message}`);
    expect(messages).toEqual([
      expect.stringMatching(
        /^servers: .*partly overlaps the IP list of Target Set 1 \(shared: 127.1.1.1\)/,
      ),
      expect.stringMatching(
        /^servers: .*partly overlaps the IP list of Target Set 2 \(shared: 127.1.1.1\)/,
      ),
    ]);
  });

  it('refuses a TSA address another Target Set uses', async () => {
    await admin.post('/api/target-sets', leastLoadTargetSet());
    const response = await admin.post('/api/target-sets', leastLoadTargetSet({ number: 2 }));
    expect(fieldsOf(response)['primary.address']).toMatch(/already used by Target Set 1/);
  });

  it('refuses a number that exists with 409', async () => {
    await admin.post('/api/target-sets', leastLoadTargetSet({ number: 5 }));
    const response = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ number: 5, primary: { address: '127.1.0.9' } }),
    );
    expect(response.statusCode).toBe(409);
    expect(fieldsOf(response).number).toBe('Target Set 5 already exists');
  });

  it('inserts a Hash IPv6 Target Set', async () => {
    const response = await admin.post('/api/target-sets', {
      family: 'ipv6',
      algorithm: 'hash',
      primary: { address: '2001:db8:0:0::100' },
      servers: [
        { address: '2001:db8::1', weight: 3 },
        { address: '2001:db8::2', weight: 1 },
      ],
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().primary.address).toBe('2001:db8::100');
    expect(response.json().servers.map((s: { chancePct: number }) => s.chancePct)).toEqual([
      75, 25,
    ]);
  });
});

describe('GET, PUT and DELETE /api/target-sets/:number', () => {
  beforeEach(async () => {
    expect((await admin.post('/api/target-sets', leastLoadTargetSet())).statusCode).toBe(201);
  });

  it('lists every Target Set with derived fields', async () => {
    const response = await admin.get('/api/target-sets');
    expect(response.json().items).toHaveLength(1);
    expect(response.json().items[0].primary.standbyIpfe).toBe('A2');
  });

  it('answers 404 for an unknown number and 400 for a number out of range', async () => {
    expect((await admin.get('/api/target-sets/7')).statusCode).toBe(404);
    const bad = await admin.get('/api/target-sets/abc');
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad).key).toMatch(/Target Set number/);
  });

  it('edits with the current ETag, and the chance of selection follows the weights', async () => {
    const response = await admin.edit(
      '/api/target-sets/1',
      leastLoadTargetSet({
        servers: [
          { address: '127.1.1.1', weight: 300 },
          { address: '127.1.1.2' },
          { address: '127.1.1.3' },
        ],
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().servers.map((s: { chancePct: number }) => s.chancePct)).toEqual([
      60, 20, 20,
    ]);
  });

  it('requires If-Match (428) and refuses a stale one (412) with the current Target Set, overwriting nothing', async () => {
    const { headers } = await admin.get('/api/target-sets/1');
    const missing = await admin.put(
      '/api/target-sets/1',
      leastLoadTargetSet({ deleteAgeSeconds: 900 }),
    );
    expect(missing.statusCode).toBe(428);
    expect(missing.json().error.code).toBe('PRECONDITION_REQUIRED');
    expect(
      (
        await admin.put(
          '/api/target-sets/1',
          leastLoadTargetSet({ deleteAgeSeconds: 700 }),
          headers.etag as string,
        )
      ).statusCode,
    ).toBe(200);
    const before = await snapshot(t.app);
    const stale = await admin.put(
      '/api/target-sets/1',
      leastLoadTargetSet({ deleteAgeSeconds: 800 }),
      headers.etag as string,
    );
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error.code).toBe('PRECONDITION_FAILED');
    expect(stale.json().current.deleteAgeSeconds).toBe(700);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('keeps number and family read-only on edit', async () => {
    const response = await admin.edit(
      '/api/target-sets/1',
      leastLoadTargetSet({ number: 2, family: 'ipv6' }),
    );
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toEqual({
      number: 'This field cannot be changed',
      family: 'This field cannot be changed',
    });
  });

  it('deletes with If-Match', async () => {
    expect((await admin.del('/api/target-sets/1')).statusCode).toBe(428);
    expect((await admin.remove('/api/target-sets/1')).statusCode).toBe(204);
    expect((await admin.get('/api/target-sets/1')).statusCode).toBe(404);
  });
});
