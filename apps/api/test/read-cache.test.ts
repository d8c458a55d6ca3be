import { checkConfiguration, deriveTargetSet, type IpfeSlot } from '@ipfe/schema';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../src/app.ts';
import { warningsOf } from '../src/domain/collections.ts';
import { ListAnswer } from '../src/http/list-answer.ts';
import { Store } from '../src/store/store.ts';
import { ConfigRepository } from '../src/repositories/config-repository.ts';
import { leastLoadTargetSet, type Client } from './helpers.ts';
import { useTestApp } from './test-app.ts';

/**
 * The list and read routes build their answers once per revision (derived fields, warnings,
 * ETags, the list's JSON). These tests hold them to the answers built from scratch on every
 * request, as the routes did before, and to the latest revision after every kind of commit.
 */

const ROUTES = ['xsi-networks', 'app-servers', 'peer-node-groups', 'target-sets'] as const;
const KINDS = {
  'xsi-networks': 'xsiNetworks',
  'app-servers': 'appServers',
  'peer-node-groups': 'peerNodeGroups',
  'target-sets': 'targetSets',
} as const;

/** The list answer as the route built it before: from the running configuration, per request. */
async function expectedList(app: App, route: (typeof ROUTES)[number]): Promise<string> {
  const config = await app.configRepository.current();
  const issues = checkConfiguration(config);
  const kind = KINDS[route];
  const items = config[kind].map((item, index) => {
    const warnings = warningsOf(issues, `${kind}.${index}`);
    if (kind !== 'targetSets') return { ...item, warnings };
    const ts = config.targetSets[index]!;
    const { owner, targetSet } = app.agentSync.liveTargetSet(ts.number, ts.primary.address);
    return {
      ...deriveTargetSet(config, ts),
      owner,
      activeBindings: targetSet?.activeBindings ?? null,
      notForwarded: targetSet?.notForwarded ?? null,
      notServed: app.agentSync.notServed(ts, config),
      warnings,
    };
  });
  return JSON.stringify({ items });
}

async function expectFreshLists(app: App, admin: Client) {
  for (const route of ROUTES) {
    const response = await admin.get(`/api/${route}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toBe(await expectedList(app, route));
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.body)));
  }
}

const targetSets = async (admin: Client) =>
  (await admin.get('/api/target-sets')).json().items as {
    number: number;
    deleteAgeSeconds: number;
    primary: { standbyIpfe: IpfeSlot | null };
    servers: { appServer: string | null }[];
    owner: IpfeSlot | null;
    activeBindings: { available: number; total: number } | null;
    warnings: unknown[];
  }[];

const { t, admin } = useTestApp({
  seed: true,
  setup: async (admin) => {
    await admin.post('/api/peer-node-groups', { name: 'png1', members: ['127.1.1.0/30'] });
    await admin.post('/api/target-sets', leastLoadTargetSet({ deleteAgeSeconds: 300 })); // a warning
    await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({
        number: 5,
        primary: { address: '127.1.0.105', activeIpfe: 'A2' },
        secondary: { address: '2001:db8::100', activeIpfe: 'A2' }, // a warning
        servers: [
          { address: '127.1.1.1', secondaryAddress: '2001:db8::1', weight: 3, description: 'a b' },
          { address: '127.1.1.2', secondaryAddress: '2001:db8::2' },
          { address: '127.1.1.3', secondaryAddress: '2001:db8::3', weight: 0 },
        ],
      }),
    );
  },
});
afterEach(() => vi.restoreAllMocks());

describe('lists built once per revision', () => {
  it('answer byte for byte what building them on every request answered, again and again', async () => {
    const [first] = await targetSets(admin);
    expect(first!.warnings).toHaveLength(1);
    await expectFreshLists(t.app, admin);
    await expectFreshLists(t.app, admin);
    const head = await admin.request({ method: 'HEAD', url: '/api/target-sets' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(
      String(Buffer.byteLength(await expectedList(t.app, 'target-sets'))),
    );
    expect(head.body).toBe('');
  });

  it('show every insert, edit and delete at once, in their own list and in the lists that derive from it', async () => {
    await expectFreshLists(t.app, admin); // every list read (and kept) at this revision
    await admin.post(
      '/api/target-sets',
      leastLoadTargetSet({ number: 7, primary: { address: '127.1.0.107' } }),
    );
    expect((await targetSets(admin)).map((ts) => ts.number)).toEqual([1, 5, 7]);
    await expectFreshLists(t.app, admin);

    await admin.edit('/api/target-sets/1', leastLoadTargetSet({ deleteAgeSeconds: 900 }));
    const [edited] = await targetSets(admin);
    expect(edited).toMatchObject({ deleteAgeSeconds: 900, warnings: [] });
    await expectFreshLists(t.app, admin);

    // Renaming an application server changes a derived field of every Target Set listing it.
    const renamed = await admin.edit('/api/app-servers/mp1', {
      name: 'mp1-renamed',
      addresses: ['127.1.1.1', '2001:db8::1'],
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await targetSets(admin))[0]!.servers[0]!.appServer).toBe('mp1-renamed');
    await expectFreshLists(t.app, admin);

    // An IPFE slot taken out of the options: no Standby IPFE for the Target Sets active on A1.
    await admin.remove('/api/target-sets/5');
    await admin.edit('/api/options', { ipfe: { A1: { address: '127.250.0.11' } } });
    const left = await targetSets(admin);
    expect(left.map((ts) => [ts.number, ts.primary.standbyIpfe])).toEqual([
      [1, null],
      [7, null],
    ]);
    await expectFreshLists(t.app, admin);
  });

  it('serve the rolled-back revision after a rollback, as it was answered then', async () => {
    const then = (await admin.get('/api/target-sets')).body;
    const revision = (await t.app.configRepository.latestInfo())!.number;
    await admin.edit('/api/target-sets/1', leastLoadTargetSet({ deleteAgeSeconds: 900 }));
    await admin.remove('/api/xsi-networks/xsi6');
    expect((await admin.get('/api/target-sets')).body).not.toBe(then);
    expect((await admin.post(`/api/revisions/${revision}/rollback`)).statusCode).toBe(201);
    expect((await admin.get('/api/target-sets')).body).toBe(then);
    await expectFreshLists(t.app, admin);
  });

  it('see a revision committed by another writer of the store, even one that reuses the number', async () => {
    await expectFreshLists(t.app, admin);
    const store = await Store.open(t.location);
    try {
      const other = new ConfigRepository(store);
      const setDeleteAge = (seconds: number) =>
        other.commit('elsewhere', (config) => ({
          config: {
            ...config,
            targetSets: config.targetSets.map((ts) =>
              ts.number === 1 ? { ...ts, deleteAgeSeconds: seconds } : ts,
            ),
          },
          summary: `Delete Age ${seconds}`,
          value: null,
        }));
      const { revision } = await setDeleteAge(700);
      expect((await targetSets(admin))[0]!.deleteAgeSeconds).toBe(700);
      await expectFreshLists(t.app, admin);
      // The latest revision replaced by another of the same number (a restored file, say).
      await store.db.deleteFrom('revisions').where('number', '=', revision!.number).execute();
      expect((await setDeleteAge(800)).revision?.number).toBe(revision!.number);
      expect((await targetSets(admin))[0]!.deleteAgeSeconds).toBe(800);
      await expectFreshLists(t.app, admin);
    } finally {
      await store.close();
    }
  });

  it('add the live fields of the moment on every request, without a commit', async () => {
    /** An agent's report of a Target Set, as its status carries it. */
    const reported = (number: number, available: number) => ({
      number,
      disabled: false,
      algorithm: 'leastLoad' as const,
      activeBindings: { available, total: 3 },
      notForwarded: [],
      servers: [],
    });
    const live = vi.spyOn(t.app.agentSync, 'liveTargetSet');
    live.mockImplementation((number) =>
      number === 5 ? { owner: 'A2', targetSet: reported(5, 2) } : { owner: null, targetSet: null },
    );
    expect((await targetSets(admin)).map((ts) => [ts.owner, ts.activeBindings])).toEqual([
      [null, null],
      ['A2', { available: 2, total: 3 }],
    ]);
    await expectFreshLists(t.app, admin);
    live.mockImplementation((number) =>
      number === 1 ? { owner: 'A1', targetSet: reported(1, 0) } : { owner: null, targetSet: null },
    );
    expect((await targetSets(admin)).map((ts) => [ts.owner, ts.activeBindings])).toEqual([
      ['A1', { available: 0, total: 3 }],
      [null, null],
    ]);
    await expectFreshLists(t.app, admin);
    const one = (await admin.get('/api/target-sets/1')).json();
    expect(one).toMatchObject({ owner: 'A1', activeBindings: { available: 0, total: 3 } });
  });
});

describe('reads of one item and their ETags, built once per revision', () => {
  it('answer the latest item and ETag after a commit and a rollback', async () => {
    const first = await admin.get('/api/target-sets/1');
    const revision = (await t.app.configRepository.latestInfo())!.number;
    const edited = await admin.put(
      '/api/target-sets/1',
      leastLoadTargetSet({ deleteAgeSeconds: 900 }),
      first.headers.etag as string,
    );
    expect(edited.statusCode).toBe(200);
    const after = await admin.get('/api/target-sets/1');
    expect(after.headers.etag).toBe(edited.headers.etag);
    expect(after.headers.etag).not.toBe(first.headers.etag);
    expect(after.body).toBe(edited.body);
    // The ETag read before the edit is stale now.
    const stale = await admin.put('/api/target-sets/1', leastLoadTargetSet(), first.headers.etag);
    expect(stale.statusCode).toBe(412);

    await admin.post(`/api/revisions/${revision}/rollback`);
    const back = await admin.get('/api/target-sets/1');
    expect(back.headers.etag).toBe(first.headers.etag);
    expect(back.body).toBe(first.body);
    await admin.remove('/api/target-sets/1');
    expect((await admin.get('/api/target-sets/1')).statusCode).toBe(404);
  });

  it('answer the latest options and their ETag after a commit', async () => {
    const before = await admin.get('/api/options');
    const changed = await admin.edit('/api/options', {
      ipfe: {
        A1: { address: '127.250.0.11' },
        A2: { address: '127.250.0.12' },
        B1: { address: '127.250.0.21' },
      },
    });
    expect(changed.statusCode).toBe(200);
    const after = await admin.get('/api/options');
    expect(after.headers.etag).toBe(changed.headers.etag);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body).toBe(changed.body);
    expect(after.json().ipfe.B1.address).toBe('127.250.0.21');
  });
});

describe('ListAnswer', () => {
  const reference = (
    entries: { item: number; view: object; warnings: unknown[] }[],
    live: (item: number) => object = () => ({}),
  ) =>
    JSON.stringify({
      items: entries.map(({ item, view, warnings }) => ({ ...view, ...live(item), warnings })),
    });

  it('answers the bytes of JSON.stringify, live fields included, even where they collide', () => {
    const entries = [
      { item: 1, view: { name: 'a', n: 1, owner: 'view' }, warnings: [] },
      { item: 2, view: {}, warnings: [{ path: 'x', message: 'é "q"\n\u2028' }] },
    ];
    const list = new ListAnswer(entries);
    expect(list.body().toString()).toBe(reference(entries));
    const lives = [
      (item: number) => ({ live: item === 1 ? 'A1' : null, gone: undefined }),
      () => ({}),
      (item: number) => ({ live: item === 2 ? { a: [1] } : null }),
      (item: number) => ({ n: item }), // named like a field of the view
      (item: number) => ({ live: item, warnings: 'live' }),
      (item: number) => ({ live: item, owner: undefined }), // the same live JSON as the next
      (item: number) => ({ live: item }),
    ];
    for (const live of lives) {
      expect(list.body(live).toString()).toBe(reference(entries, live));
      expect(list.body(live).toString()).toBe(reference(entries, live));
    }
    const withWarnings = [{ item: 1, view: { warnings: 'view', a: 1 }, warnings: [] }];
    expect(new ListAnswer(withWarnings).body().toString()).toBe(reference(withWarnings));
    expect(new ListAnswer([]).body().toString()).toBe('{"items":[]}');
  });

  it('answers live fields changed in place, renamed, reordered or made objects at once', () => {
    const entries = [
      { item: 1, view: { name: 'a' }, warnings: [] },
      { item: 2, view: { name: 'b' }, warnings: [{ path: 'x', message: 'm' }] },
    ];
    const list = new ListAnswer(entries);
    // One object, changed in place between requests, as a careless live source might.
    const shared: Record<string, unknown> = { owner: 'A1', n: 1 };
    const live = (item: number) => (item === 1 ? shared : { owner: null });
    const steps = [
      () => {},
      () => (shared.owner = 'A2'),
      () => (shared.n = 2),
      () => (shared.n = '2'),
      () => (shared.n = null),
      () => (shared.n = { available: 1, total: 3 }),
      () => ((shared.n as { available: number }).available = 2),
      () => (shared.n = 0),
      () => (shared.n = -0),
      () => (shared.n = Number.NaN),
      () => (shared.n = undefined),
      () => delete shared.owner,
      () => (shared.owner = 'A1'), // the same names and values, in another order
      () => (shared.extra = true),
      () => delete shared.extra,
    ];
    for (const step of steps) {
      step();
      expect(list.body(live).toString()).toBe(reference(entries, live));
      expect(list.body(live).toString()).toBe(reference(entries, live));
    }
  });
});
