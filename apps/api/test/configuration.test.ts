import { describe, expect, it } from 'vitest';
import { leastLoadTargetSet, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp({
  seed: true,
  setup: (client) => client.post('/api/target-sets', leastLoadTargetSet()),
});

/** The running configuration as GET /api/export answers it. */
async function exported() {
  return (await admin.get('/api/export')).json();
}

const put = (document: unknown, ifMatch?: string) =>
  admin.request({
    method: 'PUT',
    url: '/api/config',
    payload: document as object,
    headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  });

describe('whole-configuration plan and apply', () => {
  it('plans an exported document as no change, and an edited one as the edit', async () => {
    const document = await exported();
    const same = await admin.post('/api/config/plan', document);
    expect(same.statusCode).toBe(200);
    expect(same.json()).toEqual({
      basedOn: document.revision,
      changes: { added: [], removed: [], changed: [] },
      problems: [],
    });
    // Derived fields (the chance of each row) are not recomputed by whoever edits the file.
    document.config.targetSets[0].servers[1].weight = 300;
    const plan = (await admin.post('/api/config/plan', document)).json();
    expect(plan.changes.changed).toContainEqual({
      path: 'targetSets.1.servers.1.weight',
      old: 100,
      new: 300,
    });
  });

  it('commits a planned document guarded by its revision; unchanged commits nothing; stale is 409', async () => {
    const document = await exported();
    const basedOn = String(document.revision);
    const unchanged = await put(document, `"${basedOn}"`);
    expect(unchanged.statusCode).toBe(200);
    expect(unchanged.headers['x-ipfe-unchanged']).toBe('true');
    document.config.targetSets[0].servers.pop();
    const applied = await put(document, `"${basedOn}"`);
    expect(applied.statusCode).toBe(201);
    expect(applied.headers['x-ipfe-revision']).toBe(String(document.revision + 1));
    const running = await exported();
    expect(running.config.targetSets[0].servers).toHaveLength(2);
    const before = await snapshot(t.app);
    document.config.targetSets[0].servers[0].weight = 200;
    const stale = await put(document, `"${basedOn}"`);
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.message).toBe(
      `The running revision is ${document.revision + 1}, not ${basedOn} that this was planned against: plan again`,
    );
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('refuses an invalid document naming the field, and commits nothing', async () => {
    const before = await snapshot(t.app);
    const document = await exported();
    const basedOn = `"${document.revision}"`;
    document.config.targetSets[0].servers[0].weight = 70000;
    const plan = (await admin.post('/api/config/plan', document)).json();
    expect(plan.problems.map((p: { path: string }) => p.path)).toEqual([
      'config.targetSets.0.servers.0.weight',
    ]);
    const refused = await put(document, basedOn);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toMatch(/^config\.targetSets\.0\.servers\.0\.weight: /);
    document.config.targetSets[0].servers[0].weight = 100;
    document.config.targetSets[0].servers[0].address = '10.99.0.1';
    const ruled = await put(document, basedOn);
    expect(ruled.statusCode).toBe(400);
    expect(ruled.json().error.fields[0].path).toMatch(/^config\.targetSets\.0\./);
    expect(
      (await put({ ...document, formatVersion: 2 }, basedOn)).json().error.fields[0].path,
    ).toBe('formatVersion');
    expect((await put({ ...document, colour: 'red' }, basedOn)).json().error.fields[0].path).toBe(
      'colour',
    );
    expect((await put(document)).statusCode).toBe(428);
    expect((await put(document, 'yesterday')).json().error.fields).toEqual([
      { path: 'If-Match', message: 'If-Match must be a revision number in quotes, such as "12"' },
    ]);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('allocates the Initiator Port Range of servers without one, up to 64; the 65th is named, nothing committed', async () => {
    const document = await exported();
    const ranges = document.config.appServers.length;
    const extra = Array.from({ length: 65 - ranges }, (_, i) => ({
      name: `bulk${i}`,
      addresses: [`127.1.2.${i + 1}`],
    }));
    document.config.appServers.push(...extra);
    const before = await snapshot(t.app);
    const refused = await put(document, `"${document.revision}"`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.fields).toEqual([
      {
        path: 'config.appServers.64.initiatorPortRange',
        message: `No Initiator Port Range is left for bulk${64 - ranges}: at most 64 application servers`,
      },
    ]);
    expect(await snapshot(t.app)).toEqual(before);

    document.config.appServers.pop();
    const plan = (await admin.post('/api/config/plan', document)).json();
    expect(plan.problems).toEqual([]);
    expect((await put(document, `"${document.revision}"`)).statusCode).toBe(201);
    const running = (await exported()).config.appServers as {
      initiatorPortRange: { start: number };
    }[];
    expect(running).toHaveLength(64);
    expect(new Set(running.map((s) => s.initiatorPortRange.start)).size).toBe(64);
  });

  it.each([
    ['not a list', 'mp9'],
    ['items that are not servers', [null, 5, 'mp9', []]],
    ['a name that is not a string', [{ name: { toString: 'x' }, addresses: ['127.1.2.1'] }]],
    [
      'a range that is not one',
      [{ name: 'mp9', addresses: ['127.1.2.1'], initiatorPortRange: 'toString' }],
    ],
    [
      'a range of prototype keys',
      [{ name: 'constructor', addresses: ['127.1.2.1'], initiatorPortRange: { valueOf: 1 } }],
    ],
    ['a null range', [{ name: 'mp9', addresses: ['127.1.2.1'], initiatorPortRange: null }]],
  ])(
    'answers 400 naming the field to appServers with %s, and commits nothing',
    async (_what, appServers) => {
      const document = await exported();
      const before = await snapshot(t.app);
      const body = { ...document, config: { ...document.config, appServers } };
      const plan = await admin.post('/api/config/plan', body);
      expect(plan.statusCode).toBe(200);
      expect(plan.json().problems[0].path).toMatch(/^config\.appServers/);
      const refused = await put(body, `"${document.revision}"`);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.fields[0].path).toMatch(/^config\.appServers/);
      expect(await snapshot(t.app)).toEqual(before);
    },
  );
});
