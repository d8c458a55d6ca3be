import { configDocumentSchema } from '@ipfe/schema';
import { digestOf } from '@ipfe/schema/digest';
import { describe, expect, it } from 'vitest';
import { leastLoadTargetSet } from './helpers.ts';
import { useTestApp } from './test-app.ts';

// Revisions 1–6: the seed; 7: a Target Set.
const { admin } = useTestApp({
  seed: true,
  setup: (admin) => admin.post('/api/target-sets', leastLoadTargetSet()),
});

describe('/api/revisions', () => {
  it('lists every commit newest first with author, time and summary', async () => {
    const response = await admin.get('/api/revisions');
    const { items, total } = response.json();
    expect(total).toBe(7);
    expect(items.map((r: { number: number }) => r.number)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(items[0]).toMatchObject({
      author: 'admin',
      summary: 'Insert Target Set 1',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(new Date(items[0].createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(
      (await admin.get('/api/revisions?limit=2&before=5'))
        .json()
        .items.map((r: { number: number }) => r.number),
    ).toEqual([4, 3]);
  });

  it("serves a revision's config document: valid for the agents, with a SHA-256 of its canonical config", async () => {
    const document = (await admin.get('/api/revisions/7')).json();
    expect(configDocumentSchema.safeParse(document).success).toBe(true);
    expect(document.sha256).toBe(digestOf(document.config));
    expect(document.config.targetSets[0].primary.standbyIpfe).toBe('A2');
    expect(document.config.targetSets[0].servers[0].initiatorPortRange).toEqual({
      start: 16384,
      end: 16895,
    });
    expect((await admin.get('/api/revisions/0')).json().config.targetSets).toEqual([]);
    expect((await admin.get('/api/revisions/99')).statusCode).toBe(404);
  });

  it('diffs two revisions by path', async () => {
    await admin.edit('/api/target-sets/1', leastLoadTargetSet({ deleteAgeSeconds: 900 })); // 8
    const diff = (await admin.get('/api/revisions/8/diff?against=6')).json();
    expect(diff.from).toBe(6);
    expect(diff.to).toBe(8);
    expect(diff.added.map((a: { path: string }) => a.path)).toEqual(['targetSets.1']);
    expect(diff.added[0].value.deleteAgeSeconds).toBe(900);
    const edit = (await admin.get('/api/revisions/8/diff?against=7')).json();
    expect(edit.changed).toEqual([{ path: 'targetSets.1.deleteAgeSeconds', old: 600, new: 900 }]);
    expect(edit.added).toEqual([]);
    expect(edit.removed).toEqual([]);
  });

  it('rolls back by committing an old revision as a new one', async () => {
    await admin.edit('/api/target-sets/1', leastLoadTargetSet({ deleteAgeSeconds: 900 })); // 8
    const response = await admin.post('/api/revisions/7/rollback');
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      number: 9,
      summary: 'Rollback to revision 7',
      author: 'admin',
    });
    expect((await admin.get('/api/target-sets/1')).json().deleteAgeSeconds).toBe(600);
    expect(response.json().sha256).toBe((await admin.get('/api/revisions/7')).json().sha256);
  });

  it('exports the latest or any revision as a download', async () => {
    const latest = await admin.get('/api/export');
    expect(latest.headers['content-disposition']).toBe(
      'attachment; filename="ipfe-config-r7.json"',
    );
    expect(latest.json().revision).toBe(7);
    const old = await admin.get('/api/export?revision=2');
    expect(old.json()).toMatchObject({ revision: 2, config: { xsiNetworks: [{ name: 'xsi1' }] } });
    expect((await admin.get('/api/export?revision=-1')).statusCode).toBe(400);
  });
});
