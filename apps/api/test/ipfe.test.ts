import { describe, expect, it } from 'vitest';
import type { IpfeView } from '@ipfe/schema';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp({ per: 'file' });

describe('GET /api/ipfe', () => {
  it("names what each slot's active alarm is on: its Target Set and server", async () => {
    const raisedAt = new Date().toISOString();
    const onServer = {
      code: 5001,
      name: 'Backend Unavailable',
      severity: 'major',
      targetSet: 2,
      server: '127.0.1.2',
      text: 'Application server 127.0.1.2 is offline',
    };
    const onIpfe = {
      ...onServer,
      code: 5012,
      name: 'Signaling Interface Heartbeat Timeout',
      targetSet: null,
      server: null,
      text: 'No beacon from IPFE A2 for 3000 ms',
    };
    await t.app.agentSyncRepository.raise({ slot: 'A1', raisedAt, ...onServer });
    await t.app.agentSyncRepository.raise({ slot: 'A1', raisedAt, ...onIpfe });
    const response = await admin.get('/api/ipfe');
    expect(response.statusCode).toBe(200);
    const a1 = (response.json() as IpfeView).items.find((i) => i.slot === 'A1')!;
    // What each alarm is and what it is on; its id and times are the Alarms page's.
    expect(a1.alarms).toEqual([onServer, onIpfe]);
  });
});
