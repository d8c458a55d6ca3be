import { describe, expect, it } from 'vitest';
import type { IpfeSlot } from '@ipfe/schema';
import { Ownership, PREEMPTION_HOLD_OFF_MS } from './ownership.ts';
import { configDocument } from './testing.ts';

const doc = configDocument({
  targetSets: [
    { tsa: '192.0.2.1', activeIpfe: 'A1', servers: ['10.0.0.1'] },
    { tsa: '192.0.2.2', activeIpfe: 'A2', servers: ['10.0.0.1'] },
    { tsa: '192.0.2.3', activeIpfe: 'A1', disabled: true, servers: ['10.0.0.1'] },
  ],
});

describe('Ownership', () => {
  it('gives a TSA to its active IPFE while it is alive', () => {
    const o = new Ownership(doc);
    expect(o.owner('192.0.2.1', 0)).toBe('A1');
    expect(o.owner('192.0.2.2', 0)).toBe('A2');
    expect(o.servedBy('A1', 0).map((r) => r.address)).toEqual(['192.0.2.1']);
  });

  it('gives it to the standby when the active is dead', () => {
    const o = new Ownership(doc);
    o.dead('A1', 5000);
    expect(o.owner('192.0.2.1', 5000)).toBe('A2');
    expect(o.servedBy('A2', 5000).map((r) => r.address)).toEqual(['192.0.2.1', '192.0.2.2']);
  });

  it('gives it back to the returning active only after the hold-off', () => {
    const o = new Ownership(doc);
    o.dead('A1', 5000);
    o.alive('A1', 8000);
    expect(o.owner('192.0.2.1', 8000)).toBe('A2');
    expect(o.owner('192.0.2.1', 8000 + PREEMPTION_HOLD_OFF_MS - 1)).toBe('A2');
    expect(o.nextChange(8000)).toBe(8000 + PREEMPTION_HOLD_OFF_MS);
    expect(o.owner('192.0.2.1', 8000 + PREEMPTION_HOLD_OFF_MS)).toBe('A1');
    // Further beacons do not restart the hold-off.
    o.alive('A1', 9000);
    expect(o.owner('192.0.2.1', 10_000)).toBe('A1');
  });

  it('makes a restarted agent wait for the hold-off, unless nobody else is alive', () => {
    const o = new Ownership(doc, { holdOffMs: 500 });
    o.restarted('A1', 100);
    expect(o.owner('192.0.2.1', 100)).toBe('A2');
    expect(o.owner('192.0.2.1', 600)).toBe('A1');
    o.restarted('A1', 1000);
    o.dead('A2', 1000);
    expect(o.owner('192.0.2.1', 1000)).toBe('A1');
  });

  it('serves a disabled Target Set by nobody, nor an unknown address', () => {
    const o = new Ownership(doc);
    expect(o.owner('192.0.2.3', 0)).toBeNull();
    expect(o.owner('203.0.113.9', 0)).toBeNull();
  });

  it('serves nobody when the active is dead and there is no live standby', () => {
    const alone = configDocument({
      options: { ipfe: { A1: { address: '198.51.100.1' } } },
      targetSets: [{ tsa: '192.0.2.1', servers: ['10.0.0.1'] }],
    });
    expect(alone.config.targetSets[0]?.primary.standbyIpfe).toBeNull();
    const o = new Ownership(alone);
    o.dead('A1', 0);
    expect(o.owner('192.0.2.1', 0)).toBeNull();
    const o2 = new Ownership(doc);
    o2.dead('A1', 0);
    o2.dead('A2', 0);
    expect(o2.owner('192.0.2.1', 0)).toBeNull();
  });

  it('follows a new configuration and keeps liveness', () => {
    const o = new Ownership(doc);
    o.dead('A1', 0);
    o.apply(
      configDocument({
        targetSets: [{ tsa: '192.0.2.9', activeIpfe: 'A1', servers: ['10.0.0.1'] }],
      }),
    );
    expect(o.owner('192.0.2.1', 0)).toBeNull();
    expect(o.owner('192.0.2.9', 0)).toBe('A2');
  });

  it('knows the roles of a secondary address', () => {
    const d = configDocument({
      targetSets: [
        {
          tsa: '192.0.2.1',
          secondary: { address: '192.0.2.101', activeIpfe: 'A2' },
          servers: [{ address: '10.0.0.1', secondaryAddress: '10.0.1.1' }],
        },
      ],
    });
    const o = new Ownership(d);
    expect(o.owner('192.0.2.101', 0)).toBe('A2');
    o.dead('A2', 0);
    expect(o.owner('192.0.2.101', 0)).toBe('A1');
  });
});

describe('Ownership when a node cannot serve (its TSA-facing link is down)', () => {
  /** 192.0.2.1 prefers A1, 192.0.2.2 prefers A2; hold-off 2000 ms. */
  type Step = ['dead' | 'alive' | 'unable' | 'able' | 'restarted', IpfeSlot, number];
  it.each<[string, Step[], number, { '192.0.2.1': IpfeSlot | null; '192.0.2.2': IpfeSlot | null }]>(
    [
      [
        'the active that cannot serve steps aside for its able mate at once',
        [['unable', 'A1', 1000]],
        1000,
        { '192.0.2.1': 'A2', '192.0.2.2': 'A2' },
      ],
      [
        'a standby that cannot serve does not take over from a dead active: nobody able, the alive serve',
        [
          ['unable', 'A2', 1000],
          ['dead', 'A1', 1000],
        ],
        1000,
        { '192.0.2.1': 'A2', '192.0.2.2': 'A2' },
      ],
      [
        'both cannot serve: each serves its own, as if both could',
        [
          ['unable', 'A1', 1000],
          ['unable', 'A2', 1000],
        ],
        1000,
        { '192.0.2.1': 'A1', '192.0.2.2': 'A2' },
      ],
      [
        'able again: the mate keeps the TSAs for the hold-off',
        [
          ['unable', 'A1', 1000],
          ['able', 'A1', 5000],
        ],
        5000 + PREEMPTION_HOLD_OFF_MS - 1,
        { '192.0.2.1': 'A2', '192.0.2.2': 'A2' },
      ],
      [
        'able again: the TSAs go back after the hold-off',
        [
          ['unable', 'A1', 1000],
          ['able', 'A1', 5000],
        ],
        5000 + PREEMPTION_HOLD_OFF_MS,
        { '192.0.2.1': 'A1', '192.0.2.2': 'A2' },
      ],
      [
        'able again while the mate cannot serve: back at once',
        [
          ['unable', 'A1', 1000],
          ['unable', 'A2', 3000],
          ['able', 'A1', 5000],
        ],
        5000,
        { '192.0.2.1': 'A1', '192.0.2.2': 'A1' },
      ],
      [
        'a node able all along is not held off by an "able" it did not need',
        [['able', 'A1', 5000]],
        5000,
        { '192.0.2.1': 'A1', '192.0.2.2': 'A2' },
      ],
      [
        'the mate that cannot serve and then dies: the unable node serves on',
        [
          ['unable', 'A1', 1000],
          ['dead', 'A2', 2000],
        ],
        2000,
        { '192.0.2.1': 'A1', '192.0.2.2': 'A1' },
      ],
      [
        'a restarted node that cannot serve stays aside',
        [
          ['restarted', 'A1', 1000],
          ['unable', 'A1', 1000],
        ],
        1000 + PREEMPTION_HOLD_OFF_MS,
        { '192.0.2.1': 'A2', '192.0.2.2': 'A2' },
      ],
    ],
  )('%s', (_name, steps, now, owners) => {
    const o = new Ownership(doc);
    for (const [event, slot, at] of steps) o[event](slot, at);
    expect({
      '192.0.2.1': o.owner('192.0.2.1', now),
      '192.0.2.2': o.owner('192.0.2.2', now),
    }).toEqual(owners);
  });

  it('an active-active member that cannot serve stops serving while another member can', () => {
    const aa = configDocument({
      options: { monitorProtocol: 'heartbeat' },
      targetSets: [{ tsa: '192.0.2.1', algorithm: 'hash', servers: ['10.0.0.1'] }],
    });
    const [ts] = aa.config.targetSets;
    const group = {
      ...aa,
      config: {
        ...aa.config,
        targetSets: [
          {
            ...ts!,
            serving: 'activeActive' as const,
            activeActiveIpfes: ['A1', 'A2'] as IpfeSlot[],
          },
        ],
      },
    };
    const o = new Ownership(group);
    const roles = () =>
      o
        .servedBy('A1', 0)
        .concat(o.servedBy('A2', 0))
        .map((r) => r.address);
    o.unable('A1', 0);
    expect(o.servedBy('A1', 0)).toEqual([]);
    expect(o.servedBy('A2', 0).map((r) => r.address)).toEqual(['192.0.2.1']);
    expect(o.owner('192.0.2.1', 0)).toBe('A2');
    o.unable('A2', 0);
    expect(roles()).toEqual(['192.0.2.1', '192.0.2.1']);
    o.able('A1', 10);
    expect(o.servedBy('A1', 10).map((r) => r.address)).toEqual(['192.0.2.1']);
    expect(o.servedBy('A2', 10)).toEqual([]);
  });
});
