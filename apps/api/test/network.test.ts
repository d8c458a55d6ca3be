import { beforeEach, describe, expect, it } from 'vitest';
import { fieldsOf, leastLoadTargetSet, seedPrerequisites, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp();

describe('/api/xsi-networks', () => {
  it('inserts, reads, lists, edits and deletes a network', async () => {
    const created = await admin.post('/api/xsi-networks', { name: 'xsi1', cidr: '10.0.0.0/24' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ name: 'xsi1', cidr: '10.0.0.0/24', warnings: [] });
    expect((await admin.get('/api/xsi-networks')).json().items).toHaveLength(1);
    const edited = await admin.edit('/api/xsi-networks/xsi1', {
      name: 'xsi1',
      cidr: '10.0.0.0/16',
    });
    expect(edited.json().cidr).toBe('10.0.0.0/16');
    expect((await admin.remove('/api/xsi-networks/xsi1')).statusCode).toBe(204);
    expect((await admin.get('/api/xsi-networks/xsi1')).statusCode).toBe(404);
  });

  it('refuses host bits, overlaps, bad names and a 17th network', async () => {
    expect(
      fieldsOf(await admin.post('/api/xsi-networks', { name: 'a', cidr: '10.0.0.5/24' })).cidr,
    ).toMatch(/did you mean 10.0.0.0\/24/);
    await admin.post('/api/xsi-networks', { name: 'a', cidr: '10.0.0.0/24' });
    expect(
      fieldsOf(await admin.post('/api/xsi-networks', { name: 'b', cidr: '10.0.0.128/25' })).cidr,
    ).toMatch(/overlaps XSI network a/);
    expect(
      fieldsOf(await admin.post('/api/xsi-networks', { name: 'bad name!', cidr: '10.9.0.0/24' }))
        .name,
    ).toMatch(/letters, digits/);
    for (let i = 1; i < 16; i++) {
      expect(
        (await admin.post('/api/xsi-networks', { name: `n${i}`, cidr: `10.${i}.0.0/16` }))
          .statusCode,
      ).toBe(201);
    }
    const seventeenth = await admin.post('/api/xsi-networks', {
      name: 'n16',
      cidr: '10.16.0.0/16',
    });
    expect(fieldsOf(seventeenth).name).toBe('At most 16 XSI networks');
  });

  it('refuses to delete or shrink a network that addresses still use, naming the users', async () => {
    await seedPrerequisites(admin);
    await admin.post('/api/target-sets', leastLoadTargetSet());
    const before = await snapshot(t.app);
    const deleted = await admin.remove('/api/xsi-networks/xsi1');
    expect(deleted.statusCode).toBe(409);
    expect(deleted.json().error.code).toBe('IN_USE');
    expect(deleted.json().error.message).toBe(
      'XSI network xsi1 is still used by application servers mp1, mp2 and mp3, and Target Set 1',
    );
    const shrunk = await admin.edit('/api/xsi-networks/xsi1', {
      name: 'xsi1',
      cidr: '127.1.1.0/24',
    });
    expect(shrunk.statusCode).toBe(400);
    expect(shrunk.json().error.message).toBe(
      'Network (CIDR): 127.1.0.100 must stay on an XSI network: it is an address of Target Set 1',
    );
    expect(fieldsOf(shrunk).cidr).toBe(
      '127.1.0.100 must stay on an XSI network: it is an address of Target Set 1',
    );
    expect(await snapshot(t.app)).toEqual(before);
  });
});

describe('/api/app-servers', () => {
  beforeEach(async () => {
    await admin.post('/api/xsi-networks', { name: 'xsi1', cidr: '127.1.0.0/16' });
  });

  it('allocates Initiator Port Ranges from the lowest free slice, keeps them on edit and reuses a freed one', async () => {
    const ranges = [];
    for (const i of [1, 2, 3]) {
      ranges.push(
        (
          await admin.post('/api/app-servers', { name: `mp${i}`, addresses: [`127.1.1.${i}`] })
        ).json().initiatorPortRange,
      );
    }
    expect(ranges).toEqual([
      { start: 16384, end: 16895 },
      { start: 16896, end: 17407 },
      { start: 17408, end: 17919 },
    ]);
    const edited = await admin.edit('/api/app-servers/mp2', {
      name: 'mp2',
      addresses: ['127.1.1.22'],
    });
    expect(edited.json().initiatorPortRange).toEqual({ start: 16896, end: 17407 });
    await admin.remove('/api/app-servers/mp2');
    const next = await admin.post('/api/app-servers', { name: 'mp4', addresses: ['127.1.1.4'] });
    expect(next.json().initiatorPortRange).toEqual({ start: 16896, end: 17407 });
  });

  it('refuses a typed Initiator Port Range as read-only', async () => {
    const response = await admin.post('/api/app-servers', {
      name: 'mp1',
      addresses: ['127.1.1.1'],
      initiatorPortRange: { start: 20000, end: 20511 },
    });
    expect(fieldsOf(response)).toEqual({ initiatorPortRange: 'This field cannot be changed' });
  });

  it('refuses addresses off the XSI network, used by another server, or more than two', async () => {
    await admin.post('/api/app-servers', { name: 'mp1', addresses: ['127.1.1.1'] });
    expect(
      fieldsOf(await admin.post('/api/app-servers', { name: 'mp2', addresses: ['10.9.9.9'] }))[
        'addresses.0'
      ],
    ).toBe('10.9.9.9 must be on the XSI network');
    expect(
      fieldsOf(await admin.post('/api/app-servers', { name: 'mp2', addresses: ['127.1.1.1'] }))[
        'addresses.0'
      ],
    ).toMatch(/already an address of application server mp1/);
    expect(
      fieldsOf(
        await admin.post('/api/app-servers', {
          name: 'mp2',
          addresses: ['127.1.1.2', '127.1.1.3', '127.1.1.4'],
        }),
      ).addresses,
    ).toMatch(/At most 2 addresses/);
    expect(
      fieldsOf(await admin.post('/api/app-servers', { name: '-bad-', addresses: ['127.1.1.2'] }))
        .name,
    ).toMatch(/hostname-like/);
  });

  it('allows at most 64 application servers', async () => {
    for (let i = 0; i < 64; i++) {
      expect(
        (await admin.post('/api/app-servers', { name: `s${i}`, addresses: [`127.1.2.${i + 1}`] }))
          .statusCode,
      ).toBe(201);
    }
    const response = await admin.post('/api/app-servers', {
      name: 's64',
      addresses: ['127.1.3.1'],
    });
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response).name).toMatch(/At most 64 application servers/);
  });

  it('refuses to delete a server a Target Set lists, and to take away an address in use', async () => {
    await admin.edit('/api/options', { ipfe: { A1: { address: '127.250.0.11' } } });
    for (const i of [1, 2])
      await admin.post('/api/app-servers', { name: `mp${i}`, addresses: [`127.1.1.${i}`] });
    await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ servers: [{ address: '127.1.1.1' }, { address: '127.1.1.2' }] }),
    );
    const deleted = await admin.remove('/api/app-servers/mp1');
    expect(deleted.statusCode).toBe(409);
    expect(deleted.json().error.message).toBe(
      'Application server mp1 is still used by Target Set 1',
    );
    const edited = await admin.edit('/api/app-servers/mp1', {
      name: 'mp1',
      addresses: ['127.1.1.9'],
    });
    expect(edited.json().error).toMatchObject({
      message: 'Addresses: 127.1.1.1 is in use by Target Set 1',
      fields: [{ path: 'addresses', message: '127.1.1.1 is in use by Target Set 1' }],
    });
  });
});

describe('/api/peer-node-groups', () => {
  it('stores members as canonical addresses and CIDRs and refuses bad ones', async () => {
    const created = await admin.post('/api/peer-node-groups', {
      name: 'dra-east',
      members: ['10.1.0.0/16', '2001:DB8::0:1'],
    });
    expect(created.json()).toEqual({
      name: 'dra-east',
      members: ['10.1.0.0/16', '2001:db8::1'],
      warnings: [],
    });
    const bad = await admin.post('/api/peer-node-groups', {
      name: 'x',
      members: ['10.1.0.0/33', '10.1.1.1'],
    });
    expect(fieldsOf(bad)['members.0']).toMatch(/address or CIDR/);
    const duplicate = await admin.post('/api/peer-node-groups', {
      name: 'x',
      members: ['10.2.0.1', '10.2.0.1'],
    });
    expect(fieldsOf(duplicate)['members.1']).toMatch(/listed twice/);
    expect((await admin.remove('/api/peer-node-groups/dra-east')).statusCode).toBe(204);
  });
});
