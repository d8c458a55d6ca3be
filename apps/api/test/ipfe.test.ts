import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, startApp, type Client, type TestApp } from './helpers.ts';

let t: TestApp;
let admin: Client;

beforeAll(async () => {
  t = await startApp();
  admin = await login(t.app);
});
afterAll(() => t.close());

describe('GET /api/ipfe', () => {
  it("names what each slot's active alarm is on: its Target Set and server", async () => {
    const raisedAt = new Date().toISOString();
    const alarm = { slot: 'A1', name: 'Backend Unavailable', severity: 'major', raisedAt };
    t.app.agentSyncRepository.raise({
      ...alarm,
      code: 5001,
      targetSet: 2,
      server: '127.0.1.2',
      text: 'Application server 127.0.1.2 is offline',
    });
    t.app.agentSyncRepository.raise({
      ...alarm,
      code: 5012,
      name: 'Mate Heartbeat Timeout',
      targetSet: null,
      server: null,
      text: 'No beacon from IPFE A2 for 3000 ms',
    });
    const response = await admin.get('/api/ipfe');
    expect(response.statusCode).toBe(200);
    const a1 = (response.json() as { items: { slot: string; alarms: unknown[] }[] }).items.find(
      (i) => i.slot === 'A1',
    )!;
    expect(a1.alarms).toEqual([
      expect.objectContaining({ code: 5001, targetSet: 2, server: '127.0.1.2' }),
      expect.objectContaining({ code: 5012, targetSet: null, server: null }),
    ]);
  });
});
