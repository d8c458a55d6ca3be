import { describe, expect, it } from 'vitest';
import { leastLoadTargetSet, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

/**
 * Refusals read as an operator reads them: fields named as the GUI names them, never by their
 * path; the paths stay in `fields[].path` for programs.
 */
const { t, admin } = useTestApp({ seed: true });

const errorOf = (response: { json(): unknown }) =>
  (response.json() as { error: { message: string; fields: { path: string; message: string }[] } })
    .error;

describe('the message of a refusal', () => {
  it('names an application server address by its label, not as addresses.0', async () => {
    const response = await admin.post('/api/app-servers', {
      name: 'mp9',
      addresses: ['fd00:2::1'],
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toEqual({
      code: 'VALIDATION',
      message: 'Address: fd00:2::1 must be on the XSI network',
      fields: [{ path: 'addresses.0', message: 'fd00:2::1 must be on the XSI network' }],
    });
  });

  it('says what is wrong with a Target Set number in the address, without "key:"', async () => {
    const response = await admin.get('/api/target-sets/abc');
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).message).toBe('Target Set number must be a whole number from 1 to 32');
  });

  it('names an IP List row and counts the other problems', async () => {
    const response = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        deleteAgeSeconds: 5,
        servers: [{ address: '127.1.1.1' }, { address: '127.1.1.2', weight: 70000 }],
      }),
    );
    expect(response.statusCode).toBe(400);
    const error = errorOf(response);
    expect(error.fields.map((f) => f.path).sort()).toEqual([
      'deleteAgeSeconds',
      'servers.1.weight',
    ]);
    expect(error.message).toMatch(/ \(and 1 more problem\)$/);
    expect([
      'Delete Age (s) must be a whole number from 10 to 3110400 (and 1 more problem)',
      'IP List row 2: Weighting must be a whole number from 0 to 65535 (and 1 more problem)',
    ]).toContain(error.message);
  });

  it('names a rule broken by a Target Set field with the field: "Primary Public IP Address: …"', async () => {
    await admin.post('/api/target-sets', leastLoadTargetSet());
    const response = await admin.post('/api/target-sets', leastLoadTargetSet({ number: 2 }));
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).message).toBe(
      'Primary Public IP Address: 127.1.0.100 is already used by Target Set 1',
    );
  });

  it('says an address in use by a Target Set is in use, when the server loses it', async () => {
    await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ servers: [{ address: '127.1.1.1' }] }),
    );
    await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        number: 2,
        primary: { address: '127.1.0.101' },
        servers: [{ address: '127.1.1.1' }],
      }),
    );
    const before = await snapshot(t.app);
    const response = await admin.edit('/api/app-servers/mp1', {
      name: 'mp1',
      addresses: ['127.1.1.9', '2001:db8::1'],
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toMatchObject({
      message: 'Addresses: 127.1.1.1 is in use by Target Sets 1 and 2',
      fields: [{ path: 'addresses', message: '127.1.1.1 is in use by Target Sets 1 and 2' }],
    });
    expect(await snapshot(t.app)).toEqual(before);
  });

  it("names the Target Set and its field when a rollback fails today's rules", async () => {
    await admin.post('/api/target-sets', leastLoadTargetSet());
    // A revision of before the host-address rule: TSA 127.1.0.0, the network address of xsi1.
    const { revision } = await t.app.configRepository.commit('admin', (config) => ({
      config: {
        ...config,
        targetSets: config.targetSets.map((ts) => ({
          ...ts,
          primary: { ...ts.primary, address: '127.1.0.0' },
        })),
      },
      summary: 'Edit Target Set 1',
      value: null,
    }));
    await admin.edit('/api/target-sets/1', leastLoadTargetSet({ number: 1 }));
    const response = await admin.post(`/api/revisions/${revision!.number}/rollback`);
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).message).toBe(
      `Revision ${revision!.number} does not pass today's rules: Target Set 1, Primary Public IP Address: 127.1.0.0 is the network address of XSI network xsi1 (127.1.0.0/16), not a host address`,
    );
  });
});

describe('a TSA or application server address is a host address of its XSI network', () => {
  it.each([
    ['127.1.0.0', 'network'],
    ['127.1.255.255', 'broadcast'],
  ])('refuses %s as a TSA (the %s address of 127.1.0.0/16)', async (address, role) => {
    const before = await snapshot(t.app);
    const primary = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ primary: { address } }),
    );
    expect(primary.statusCode).toBe(400);
    expect(errorOf(primary).fields).toContainEqual({
      path: 'primary.address',
      message: `${address} is the ${role} address of XSI network xsi1 (127.1.0.0/16), not a host address`,
    });
    const secondary = await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        secondary: { address, activeIpfe: 'A2' },
        servers: [{ address: '127.1.1.1', secondaryAddress: '2001:db8::1' }],
      }),
    );
    expect(errorOf(secondary).fields).toContainEqual({
      path: 'secondary.address',
      message: `${address} is the ${role} address of XSI network xsi1 (127.1.0.0/16), not a host address`,
    });
    const server = await admin.post('/api/app-servers', { name: 'mp9', addresses: [address] });
    expect(errorOf(server).fields).toEqual([
      {
        path: 'addresses.0',
        message: `${address} is the ${role} address of XSI network xsi1 (127.1.0.0/16), not a host address`,
      },
    ]);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('accepts the addresses next to them', async () => {
    for (const address of ['127.1.0.1', '127.1.255.254']) {
      const response = await admin.post(
        '/api/target-sets',
        leastLoadTargetSet({ number: undefined, primary: { address } }),
      );
      expect(response.statusCode, response.body).toBe(201);
      await admin.remove(`/api/target-sets/${response.json().number}`);
    }
  });

  it('refuses a network edit that makes a TSA the network address, naming the Target Set', async () => {
    await admin.post('/api/xsi-networks', { name: 'xsi2', cidr: '10.9.0.0/16' });
    await admin.post('/api/app-servers', { name: 'mp4', addresses: ['10.9.1.1'] });
    await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        primary: { address: '10.9.2.0' },
        servers: [{ address: '10.9.1.1' }],
      }),
    );
    const response = await admin.edit('/api/xsi-networks/xsi2', {
      name: 'xsi2',
      cidr: '10.9.2.0/24',
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).fields).toContainEqual({
      path: 'cidr',
      message:
        '10.9.2.0 would be the network address of XSI network xsi2 (10.9.2.0/24): it is an address of Target Set 1',
    });
  });
});
