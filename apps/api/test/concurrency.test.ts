import { describe, expect, it } from 'vitest';
import { leastLoadTargetSet, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp({
  per: 'file',
  seed: true,
  setup: async (admin) =>
    expect((await admin.post('/api/target-sets', leastLoadTargetSet())).statusCode).toBe(201),
});

describe('concurrent writers', () => {
  it('20 concurrent PUTs with the same If-Match: exactly one 200, nineteen 412, and the winner is what is stored', async () => {
    const { headers } = await admin.get('/api/target-sets/1');
    const before = await snapshot(t.app);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        admin.put(
          '/api/target-sets/1',
          leastLoadTargetSet({ deleteAgeSeconds: 1000 + i }),
          headers.etag as string,
        ),
      ),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(412)]);
    const winner = responses.find((r) => r.statusCode === 200)!.json();
    const stored = (await admin.get('/api/target-sets/1')).json();
    expect(stored.deleteAgeSeconds).toBe(winner.deleteAgeSeconds);
    expect((await snapshot(t.app)).revisions).toBe(before.revisions + 1);
    for (const loser of responses.filter((r) => r.statusCode === 412)) {
      expect(loser.json().current.deleteAgeSeconds).toBe(winner.deleteAgeSeconds);
    }
  });

  it('20 concurrent inserts of the same number: exactly one 201', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        admin.post(
          '/api/target-sets',
          leastLoadTargetSet({ number: 7, primary: { address: `127.1.0.${150 + i}` } }),
        ),
      ),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    expect(
      (await admin.get('/api/target-sets'))
        .json()
        .items.filter((ts: { number: number }) => ts.number === 7),
    ).toHaveLength(1);
  });
});
