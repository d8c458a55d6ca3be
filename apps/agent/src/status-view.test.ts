import { Engine } from '@ipfe/engine';
import { describe, expect, it } from 'vitest';
import { ByServer } from './by-server.ts';
import { countersView, statusView, type StatusInputs } from './status-view.ts';
import { testDocument } from './testing.ts';

/** Target Set 1 (TSA 192.0.2.100, secondary 192.0.2.110) with 10.0.0.1 and 10.0.0.2. */
const document = testDocument(4, (c) => {
  c.targetSets[0]!.secondary = { address: '192.0.2.110', activeIpfe: 'A1' };
});
const engine = () => new Engine(document, 0, { slot: 'A1' });

describe('the counters an agent reports', () => {
  it('takes opened and active per server from the data path, summed over its Target Set’s TSAs', () => {
    const counted = new ByServer<{ active: number; opened: number }>()
      .set('192.0.2.100', '10.0.0.1', { active: 2, opened: 5 })
      .set('192.0.2.110', '10.0.0.1', { active: 1, opened: 3 })
      .set('192.0.2.100', '10.0.0.2', { active: 0, opened: 4 });
    const refused = new Map([[1, 7]]);
    const view = countersView(engine().counters(), { servers: counted, refused }, document)!;
    const ts1 = view.targetSets.find((t) => t.number === 1)!;
    expect(ts1.servers.map((s) => [s.address, s.opened, s.active])).toEqual([
      ['10.0.0.1', 8, 3],
      ['10.0.0.2', 4, 0],
    ]);
    expect(ts1.refused['no-server']).toBe(7);
  });

  it('leaves the engine’s own where the path counts nothing (user space)', () => {
    const counters = engine().counters();
    expect(countersView(counters, { servers: null, refused: null }, document)).toBe(counters);
  });
});

describe('the status an agent reports', () => {
  const inputs = (parts: Partial<StatusInputs> = {}): StatusInputs => {
    const e = engine();
    return {
      slot: 'A1',
      boot: 'boot-1',
      document,
      appliedAt: '2026-12-05T00:00:00.000Z',
      dataPath: {
        kind: 'userspace',
        forwards: ['tcp'],
        listening: ['192.0.2.100:3868'],
        counts: {
          connections: 3,
          servers: null,
          refused: null,
          measured: {
            rxBytes: null,
            rxSctpBytes: null,
            txBytes: null,
            unexpectedTcp: null,
            unexpectedSctp: null,
          },
        },
      },
      activeActive: false,
      mate: { slot: 'A2', alive: true, heardAt: 9_000 },
      owned: [
        {
          address: '192.0.2.100',
          targetSet: 1,
          active: 'A1',
          standby: 'A2',
          disabled: false,
          activeActive: null,
        },
        {
          address: '192.0.2.101',
          targetSet: 2,
          active: 'A2',
          standby: 'A1',
          disabled: false,
          activeActive: null,
        },
      ],
      engine: e.status(10_000),
      liveCounters: null,
      monitoring: [],
      alarms: [],
      alarmHistory: [],
      counts: {
        configApplies: 1,
        configRejects: 0,
        failovers: 1,
        heartbeats: 0,
        malformedHeartbeats: 0,
      },
      bgp: null,
      measurements: { accounting: true, targetSets: [] },
      now: 10_000,
      wallNow: Date.parse('2026-12-05T12:00:10.000Z'),
      ...parts,
    };
  };

  it('says which revision it runs, its role per TSA and when it last heard its mate', () => {
    const status = statusView(inputs());
    expect(status.revision).toBe(4);
    expect(status.sha256).toBe(document.sha256);
    expect(status.owned).toEqual([
      { tsa: '192.0.2.100', targetSet: 1, role: 'active' },
      { tsa: '192.0.2.101', targetSet: 2, role: 'standby' },
    ]);
    // Heard at 9 s of a monotonic clock that reads 10 s at 12:00:10.
    expect(status.mate).toEqual({
      slot: 'A2',
      alive: true,
      lastHeardAt: '2026-12-05T12:00:09.000Z',
    });
    expect(status.connections).toBe(3);
  });

  it.each([
    { forwards: ['tcp'] as const, protocols: 'both' as const, expected: ['sctp'] },
    { forwards: ['tcp', 'sctp'] as const, protocols: 'both' as const, expected: [] },
    { forwards: ['tcp'] as const, protocols: 'tcp' as const, expected: [] },
  ])(
    'lists the protocols of a Target Set its path does not forward ($protocols on $forwards)',
    ({ forwards, protocols, expected }) => {
      const doc = testDocument(4, (c) => {
        c.targetSets[0]!.protocols = protocols;
      });
      const status = statusView(
        inputs({
          document: doc,
          engine: new Engine(doc, 0, { slot: 'A1' }).status(0),
          dataPath: { ...inputs().dataPath, forwards },
        }),
      );
      expect(status.targetSets.find((t) => t.number === 1)?.notForwarded).toEqual(expected);
    },
  );

  it('says a mate never heard has never been heard', () => {
    const status = statusView(inputs({ mate: { slot: 'A2', alive: true, heardAt: null } }));
    expect(status.mate.lastHeardAt).toBeNull();
  });

  it('shows a server’s open connections from the data path where it counts them', () => {
    const counted = new ByServer<{ active: number; opened: number }>().set(
      '192.0.2.100',
      '10.0.0.2',
      { active: 6, opened: 9 },
    );
    const e = engine();
    const live = countersView(e.counters(), { servers: counted, refused: null }, document);
    const status = statusView(inputs({ engine: e.status(0), liveCounters: live }));
    const servers = status.targetSets.find((t) => t.number === 1)!.servers;
    expect(servers.map((s) => [s.address, s.active])).toEqual([
      ['10.0.0.1', 0],
      ['10.0.0.2', 6],
    ]);
  });
});
