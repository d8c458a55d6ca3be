import type { AlarmEvent } from '../src/repositories/agent-sync-repository.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from './helpers.ts';

const event = (id: number): AlarmEvent => ({
  kind: 'raised',
  alarm: {
    id,
    slot: 'A1',
    code: 5013,
    name: 'Throttling Traffic',
    severity: 'major',
    targetSet: null,
    server: null,
    text: `alarm ${id}`,
    raisedAt: new Date().toISOString(),
    clearedAt: null,
  },
});

/** The trap outbox (decision 022): a trap taken out is taken once, whoever takes it. */
describe('the trap outbox', () => {
  let oam: TestApp;
  beforeAll(async () => {
    oam = await startApp();
  });
  afterAll(() => oam?.close());

  it('hands each trap to exactly one of several takers at once, oldest first', async () => {
    const repository = oam.app.agentSyncRepository;
    const queued = Array.from({ length: 250 }, (_, i) => i + 1);
    await repository.transaction(async (trx) => {
      for (const id of queued) await trx.queueTrap(event(id));
    });
    const batches = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const taken: number[] = [];
        for (;;) {
          const batch = await repository.takeTraps(40);
          if (batch.length === 0) return taken;
          taken.push(...batch.map((t) => t.event.alarm.id));
        }
      }),
    );
    for (const taken of batches) expect(taken).toEqual([...taken].sort((a, b) => a - b));
    expect(batches.flat().sort((a, b) => a - b)).toEqual(queued);
    expect(await repository.takeTraps(40)).toEqual([]);
  });
});
