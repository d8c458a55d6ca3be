import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  login,
  seedPrerequisites,
  startApp,
  testEngine,
  waitFor,
  type Client,
  type TestApp,
} from './helpers.ts';
import { startAutoFailoverPair, type AutoFailoverPair } from './pg-auto-failover.ts';

const hasPgAutoctl = spawnSync('pg_autoctl', ['--version']).status === 0;

/**
 * The store's own failover (issue 25 item 4, decision 023): an OAM given both hosts of a
 * pg_auto_failover pair; the primary killed outright; the manager promotes the standby.
 */
describe.runIf(testEngine() === 'postgres' && hasPgAutoctl)(
  'the store failed over by pg_auto_failover',
  () => {
    let pair: AutoFailoverPair;
    let oam: TestApp;
    let admin: Client;
    let next = 0;
    /** One write: a new XSI network, a new revision. Its answer and how long it took. */
    const write = async () => {
      const i = next++;
      const started = performance.now();
      const response = await admin.post('/api/xsi-networks', {
        name: `failover-${i}`,
        cidr: `10.${i >> 8}.${i & 255}.0/24`,
      });
      return {
        status: response.statusCode,
        body: response.json() as { error?: { code: string; message: string } },
        revision: Number(response.headers['x-ipfe-revision']),
        ms: performance.now() - started,
      };
    };

    beforeAll(async () => {
      pair = await startAutoFailoverPair();
      oam = await startApp({ databaseUrl: pair.url });
      admin = await login(oam.app);
      await seedPrerequisites(admin);
    }, 240_000);

    afterAll(async () => {
      await oam?.close();
      await pair?.stop();
    }, 60_000);

    it('keeps every answered commit; reads are served and writes answer 503 while no primary, within 10 s; writes resume by themselves', async () => {
      const committed: number[] = [];
      for (let i = 0; i < 5; i++) {
        const answer = await write();
        expect(answer.status).toBe(201);
        committed.push(answer.revision);
      }
      const before = await pair.primary();
      expect(before).not.toBeNull();
      pair.kill(before!);

      // Until the manager has promoted the standby: every write answers 201 or 503, never 500, and
      // none takes longer than 10 s; the GUI's reads are served from the standby meanwhile.
      const unavailable: string[] = [];
      let readsWhileDown = 0;
      const deadline = Date.now() + 120_000;
      for (;;) {
        const answer = await write();
        expect(answer.ms).toBeLessThan(10_000);
        expect([201, 503]).toContain(answer.status);
        if (answer.status === 201) {
          committed.push(answer.revision);
          if (unavailable.length > 0) break;
          continue; // the standby not promoted yet has not been noticed: the write went nowhere else
        }
        unavailable.push(answer.body.error!.message);
        const read = await admin.get('/api/target-sets');
        if (read.statusCode === 200) readsWhileDown++;
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(unavailable.length).toBeGreaterThan(0);
      expect(unavailable[0]).toMatch(/store .*(read-only|cannot be reached)/);
      expect(readsWhileDown).toBeGreaterThan(0);
      // The keeper promotes, then reports it to the monitor.
      await waitFor(
        'the monitor to name the new primary',
        async () => ((await pair.primary()) === 1 - before! ? true : null),
        60_000,
      );

      // The old primary rejoins as the standby; the OAM was never restarted.
      pair.restart(before!);
      expect(await pair.settled()).toBe(1 - before!);
      for (let i = 0; i < 3; i++) {
        const answer = await write();
        expect(answer.status).toBe(201);
        committed.push(answer.revision);
      }

      const history = await admin.get('/api/revisions?limit=1000');
      const numbers = (history.json() as { items: { number: number }[] }).items
        .map((r) => r.number)
        .sort((a, b) => a - b);
      for (const revision of committed) expect(numbers).toContain(revision);
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i));
    }, 300_000);
  },
);
