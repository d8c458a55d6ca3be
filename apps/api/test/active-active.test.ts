import { beforeEach, describe, expect, it } from 'vitest';
import { MESSAGES } from '@ipfe/schema';
import { fieldsOf, leastLoadTargetSet, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp({ seed: true });

const IPFE = { A1: { address: '127.250.0.11' }, A2: { address: '127.250.0.12' } };
const BGP = { asn: 65010, peers: [{ address: '127.250.0.1', asn: 65000 }] };

/** Target Set 1 served by IPFEs A1 and A2 together, by Hash. */
const activeActive = (overrides: Record<string, unknown> = {}) =>
  leastLoadTargetSet({
    algorithm: 'hash',
    serving: 'activeActive',
    activeActiveIpfes: ['A1', 'A2'],
    ...overrides,
  });

describe('an active-active Target Set (issue 18)', () => {
  beforeEach(async () => {
    expect((await admin.edit('/api/options', { ipfe: IPFE, bgp: BGP })).statusCode).toBe(200);
  });

  it('Options keep the BGP section with its BFD defaults', async () => {
    expect((await admin.get('/api/options')).json().bgp).toEqual({
      ...BGP,
      bfdIntervalMs: 50,
      bfdMultiplier: 3,
    });
  });

  it('is inserted and read back with its serving mode and IPFEs', async () => {
    const response = await admin.post('/api/target-sets', activeActive());
    expect(response.statusCode).toBe(201);
    const read = (await admin.get('/api/target-sets/1')).json();
    expect(read).toMatchObject({ serving: 'activeActive', activeActiveIpfes: ['A1', 'A2'] });
  });

  it('an active/standby Target Set says so, and carries no IPFE list', async () => {
    await admin.post('/api/target-sets', leastLoadTargetSet());
    const read = (await admin.get('/api/target-sets/1')).json();
    expect(read.serving).toBe('activeStandby');
    expect(read).not.toHaveProperty('activeActiveIpfes');
  });

  it.each([
    ['Least Load', { algorithm: 'leastLoad' }, 'algorithm', MESSAGES.leastLoadNotActiveActive],
    [
      'one IPFE',
      { activeActiveIpfes: ['A1'] },
      'activeActiveIpfes',
      MESSAGES.activeActiveIpfesTooFew,
    ],
    [
      'an IPFE twice',
      { activeActiveIpfes: ['A1', 'A1'] },
      'activeActiveIpfes.1',
      'IPFE A1 is listed twice',
    ],
    [
      'an IPFE list on an active/standby set',
      { serving: 'activeStandby' },
      'activeActiveIpfes',
      MESSAGES.activeActiveIpfesOnlyWithActiveActive,
    ],
    [
      'a list that is not a list',
      { activeActiveIpfes: { A1: true } },
      'activeActiveIpfes',
      'Active-Active IPFEs must be a list of IPFE slots',
    ],
  ])(
    'refuses %s with 400, naming the field, and saves nothing',
    async (_, overrides, path, message) => {
      const before = await snapshot(t.app);
      const response = await admin.post('/api/target-sets', activeActive(overrides));
      expect(response.statusCode).toBe(400);
      expect(fieldsOf(response)[path]).toBe(message);
      expect(await snapshot(t.app)).toEqual(before);
    },
  );

  it('refuses an IPFE that is not configured, saying where to configure it', async () => {
    const response = await admin.post(
      '/api/target-sets',
      activeActive({ activeActiveIpfes: ['A1', 'B2'] }),
    );
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(fieldsOf(response)['activeActiveIpfes.1']).toBe(
      `IPFE B2 is not configured. ${MESSAGES.configureIpfe}`,
    );
  });

  it('refuses clearing BGP on the Options page while a Target Set is active-active', async () => {
    expect((await admin.post('/api/target-sets', activeActive())).statusCode).toBe(201);
    const before = await snapshot(t.app);
    const response = await admin.edit('/api/options', { ipfe: IPFE, bgp: null });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(JSON.stringify(response.json())).toContain('Target Set 1');
    expect(await snapshot(t.app)).toEqual(before);
  });
});

describe('the IPFEs of an active-active group', () => {
  it('keep their addresses read-only on the Options page, like an Active IPFE', async () => {
    await admin.edit('/api/options', { ipfe: IPFE, bgp: BGP });
    expect((await admin.post('/api/target-sets', activeActive())).statusCode).toBe(201);
    const response = await admin.edit('/api/options', {
      ipfe: { ...IPFE, A2: { address: '127.250.0.99' } },
      bgp: BGP,
    });
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)['ipfe.A2.address']).toMatch(/Target Set 1 is served through IPFE A2/);
  });
});

describe('an active-active Target Set without BGP', () => {
  it('is refused on its Serving field', async () => {
    await admin.edit('/api/options', { ipfe: IPFE });
    const response = await admin.post('/api/target-sets', activeActive());
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(fieldsOf(response).serving).toBe(MESSAGES.activeActiveNeedsBgp);
  });
});

describe('Options › BGP refusals', () => {
  it.each([
    [{ ...BGP, asn: 0 }, 'bgp.asn', 'BGP ASN must be a whole number from 1 to 4294967295'],
    [{ ...BGP, peers: [] }, 'bgp.peers', 'BGP needs at least one peer (an upstream router)'],
    [
      { ...BGP, peers: [{ address: 'x', asn: 1 }] },
      'bgp.peers.0.address',
      'BGP peer address must be an IPv4 or IPv6 address',
    ],
    [
      { ...BGP, bfdIntervalMs: 10 },
      'bgp.bfdIntervalMs',
      'BFD interval (ms) must be a whole number from 50 to 1000',
    ],
    ['on', 'bgp', /./],
  ])('refuses %j with 400 on %s', async (bgp, path, message) => {
    const response = await admin.edit('/api/options', { ipfe: IPFE, bgp });
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)[path]).toMatch(message);
  });
});
