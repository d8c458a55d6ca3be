import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { leastLoadTargetSet } from './helpers.ts';
import { useTestApp } from './test-app.ts';

/**
 * A save that changes nothing commits nothing: no revision in the log, nothing for the agents.
 * The push is followed for real: agent sync runs (its agents, at 127.250.0.11/12, do not answer),
 * and every commit raises each configured slot's desired revision.
 */
const { admin } = useTestApp({
  agentSync: { enabled: true, pollIntervalMs: 60_000, backoffMinMs: 60_000 },
  seed: true,
  setup: async (admin) =>
    expect((await admin.post('/api/target-sets', leastLoadTargetSet())).statusCode).toBe(201),
});

/** What a person sees of the history and of the push: the revision log and each IPFE's target. */
async function history() {
  const revisions = (await admin.get('/api/revisions')).json() as {
    total: number;
    items: { number: number; sha256: string }[];
  };
  const ipfe = (await admin.get('/api/ipfe')).json() as {
    latestRevision: number;
    items: { slot: string; desiredRevision: number | null }[];
  };
  return {
    total: revisions.total,
    latest: revisions.items[0]!.number,
    latestRevision: ipfe.latestRevision,
    desired: ipfe.items.map((i) => [i.slot, i.desiredRevision]),
  };
}

function expectNothingSaved(response: LightMyRequestResponse, etagBefore: string) {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['x-ipfe-unchanged']).toBe('true');
  expect(response.headers['x-ipfe-revision']).toBeUndefined();
  expect(response.headers.etag).toBe(etagBefore);
}

describe('a save that changes nothing', () => {
  it.each([
    ['/api/options'],
    ['/api/xsi-networks/xsi1'],
    ['/api/app-servers/mp2'],
    ['/api/target-sets/1'],
  ])('on %s makes no revision and no push, and answers the entity as it is', async (url) => {
    const before = await history();
    expect(before.desired).toContainEqual(['A1', before.latest]);
    const current = await admin.get(url);
    const {
      warnings: _w,
      owner: _o,
      activeBindings: _a,
      notForwarded: _n,
      notServed: _s,
      ...body
    } = current.json();
    const input = url.startsWith('/api/target-sets')
      ? {
          ...body,
          primary: { address: body.primary.address, activeIpfe: body.primary.activeIpfe },
          servers: body.servers.map((s: Record<string, unknown>) => ({
            address: s.address,
            secondaryAddress: s.secondaryAddress,
            description: s.description,
            weight: s.weight,
          })),
        }
      : url.startsWith('/api/app-servers')
        ? { name: body.name, addresses: body.addresses }
        : body;
    const response = await admin.put(url, input, current.headers.etag as string);
    expectNothingSaved(response, current.headers.etag as string);
    expect(response.json()).toEqual(current.json());
    expect(await history()).toEqual(before);
    // The audit log tells what happened.
    const audit = (await admin.get('/api/audit')).json() as {
      items: { action: string; detail: string | null }[];
    };
    expect(audit.items[0]).toMatchObject({ action: 'put', detail: 'no change' });
  });

  it('with values spelled differently but meaning the same (defaults left out) is no change either', async () => {
    const before = await history();
    const current = await admin.get('/api/target-sets/1');
    // What was inserted, with every default left out again and the address spelled with spaces.
    const response = await admin.put(
      '/api/target-sets/1',
      leastLoadTargetSet({ number: 1, primary: { address: ' 127.1.0.100 ', activeIpfe: 'A1' } }),
      current.headers.etag as string,
    );
    expectNothingSaved(response, current.headers.etag as string);
    expect(await history()).toEqual(before);
  });

  it('still makes a revision and a push when one value changes', async () => {
    const before = await history();
    const response = await admin.edit(
      '/api/target-sets/1',
      leastLoadTargetSet({ number: 1, deleteAgeSeconds: 900 }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-ipfe-unchanged']).toBeUndefined();
    expect(response.headers['x-ipfe-revision']).toBe(String(before.latest + 1));
    const after = await history();
    expect(after.total).toBe(before.total + 1);
    expect(after.desired).toContainEqual(['A1', before.latest + 1]);
  });

  it('by a rollback to a revision identical to the running one makes no revision and no push', async () => {
    const running = (await history()).latest;
    // Revision running+1 changes a value, running+2 changes it back: running+2 has running's content.
    await admin.edit(
      '/api/target-sets/1',
      leastLoadTargetSet({ number: 1, deleteAgeSeconds: 900 }),
    );
    await admin.edit('/api/target-sets/1', leastLoadTargetSet({ number: 1 }));
    const before = await history();
    expect(before.latest).toBe(running + 2);
    for (const target of [running, running + 2]) {
      const response = await admin.post(`/api/revisions/${target}/rollback`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['x-ipfe-unchanged']).toBe('true');
      expect(response.headers['x-ipfe-revision']).toBeUndefined();
      // The answer is the running revision, which already has that content.
      expect(response.json()).toMatchObject({ number: running + 2 });
      expect(await history()).toEqual(before);
    }
    // A rollback to a different content still commits.
    const changed = await admin.post(`/api/revisions/${running + 1}/rollback`);
    expect(changed.statusCode).toBe(201);
    expect(changed.headers['x-ipfe-revision']).toBe(String(running + 3));
  });
});
