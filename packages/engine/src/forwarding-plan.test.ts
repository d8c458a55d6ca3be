import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import { ADOPT_MAX_MS, adoption } from './forwarding-plan.ts';
import { configDocument, type TargetSetSpec } from './testing.ts';

describe('what a data path does with a flow it has no record of', () => {
  it.each([
    { announce: 'arp', takenOverAt: undefined, now: 0, mateRecords: false, byTable: false },
    { announce: 'arp', takenOverAt: 1000, now: 1000, mateRecords: true, byTable: true },
    { announce: 'arp', takenOverAt: 1000, now: 30_999, mateRecords: true, byTable: true },
    { announce: 'arp', takenOverAt: 1000, now: 31_000, mateRecords: false, byTable: false },
    { announce: 'bgp', takenOverAt: undefined, now: 0, mateRecords: false, byTable: true },
    { announce: 'bgp', takenOverAt: 1000, now: 2000, mateRecords: true, byTable: true },
  ] as const)(
    '$announce, taken over at $takenOverAt, at $now: mate records $mateRecords, by table $byTable',
    ({ announce, takenOverAt, now, mateRecords, byTable }) => {
      expect(adoption({ announce, adoptWindowMs: 30_000 }, takenOverAt, now)).toEqual({
        mateRecords,
        byTable,
      });
    },
  );

  it.each([
    { deleteAgeSeconds: 30, windowMs: 30_000 },
    { deleteAgeSeconds: 600, windowMs: ADOPT_MAX_MS },
  ])('adopts for Delete Age $deleteAgeSeconds s at most a minute', (row) => {
    const engine = new Engine(
      configDocument({
        targetSets: [
          { tsa: '192.0.2.1', deleteAgeSeconds: row.deleteAgeSeconds, servers: ['10.1.0.1'] },
        ],
      }),
      0,
    );
    expect(engine.plan(['192.0.2.1'], 0).tsas[0]?.adoptWindowMs).toBe(row.windowMs);
  });
});

describe('the pairs a configuration forwards', () => {
  const withSecondary = (servers: TargetSetSpec['servers'], disabled = false) =>
    ({
      tsa: '192.0.2.1',
      disabled,
      secondary: { address: '192.0.2.101', activeIpfe: 'A1' },
      servers,
    }) as TargetSetSpec;

  it('lists every TSA × where its servers’ packets go, served or not, enabled Target Sets only', () => {
    const engine = new Engine(
      configDocument({
        targetSets: [
          withSecondary(['10.1.0.1', { address: '10.1.0.2', secondaryAddress: '10.2.0.2' }]),
          { tsa: '192.0.2.2', disabled: true, servers: ['10.1.0.3'] },
          { tsa: '192.0.2.3', activeIpfe: 'B1', servers: ['10.1.0.4'] },
        ],
      }),
      0,
      { slot: 'A1' },
    );
    expect(engine.plan([], 0).forwarded).toEqual([
      { tsa: '192.0.2.1', address: '10.1.0.1' },
      { tsa: '192.0.2.1', address: '10.1.0.2' },
      { tsa: '192.0.2.101', address: '10.1.0.1' },
      { tsa: '192.0.2.101', address: '10.2.0.2' },
    ]);
  });

  it('the address behind the secondary TSA is the same in the plan and in an open connection', () => {
    const engine = new Engine(
      configDocument({
        options: { monitorProtocol: 'disabled', forwardedPorts: [80] },
        targetSets: [withSecondary([{ address: '10.1.0.2', secondaryAddress: '10.2.0.2' }])],
      }),
      0,
    );
    const opened = engine.open(
      { protocol: 'tcp', sourceIp: '198.18.0.1', sourcePort: 4000, tsa: '192.0.2.101', port: 80 },
      0,
    );
    expect(opened).toMatchObject({ ok: true, server: '10.1.0.2', address: '10.2.0.2' });
    expect(engine.plan(['192.0.2.101'], 0).tsas[0]?.servers[0]?.address).toBe('10.2.0.2');
  });
});
