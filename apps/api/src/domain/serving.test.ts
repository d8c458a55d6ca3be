import { describe, expect, it } from 'vitest';
import {
  agentStatusSchema,
  emptyConfiguration,
  optionsSchema,
  targetSetSchema,
  type AgentStatus,
  type Configuration,
  type DataPath,
  type IpfeSlot,
} from '@ipfe/schema';
import { newServingProblems, servingProblems, unservedTsas, type Statuses } from './serving.ts';

const TSA = '127.0.0.101';

function targetSet(fields: Record<string, unknown> = {}) {
  return targetSetSchema.parse({
    number: 2,
    family: 'ipv4',
    algorithm: 'hash',
    primary: { address: TSA, activeIpfe: 'A1' },
    servers: [{ address: '127.0.0.21' }],
    ...fields,
  });
}

const ACTIVE_ACTIVE = { serving: 'activeActive', activeActiveIpfes: ['A1', 'A2'] };

function configWith(...targetSets: ReturnType<typeof targetSet>[]): Configuration {
  return {
    ...emptyConfiguration(),
    options: optionsSchema.parse({
      ipfe: { A1: { address: '127.0.0.11' }, A2: { address: '127.0.0.12' } },
    }),
    targetSets,
  };
}

interface Report {
  dataplane?: DataPath;
  forwards?: ('tcp' | 'sctp')[];
  activeActive?: boolean;
  owned?: { tsa: string; targetSet: number; role: 'active' | 'standby' }[];
  announced?: string[];
  alarms?: { code: number; targetSet: number; text: string }[];
}

function status(slot: IpfeSlot, report: Report = {}): AgentStatus {
  const dataplane = report.dataplane ?? 'userspace';
  return agentStatusSchema.parse({
    slot,
    boot: 'b',
    revision: 1,
    sha256: null,
    appliedAt: null,
    dataplane,
    forwards: report.forwards ?? (dataplane === 'direct' ? ['tcp', 'sctp'] : ['tcp']),
    ...(report.activeActive === undefined ? {} : { activeActive: report.activeActive }),
    mate: { slot: slot === 'A1' ? 'A2' : 'A1', alive: true, lastHeardAt: null },
    owned: report.owned ?? [],
    listening: [],
    connections: 0,
    targetSets: [],
    monitoring: [],
    alarms: (report.alarms ?? []).map((a) => ({
      ...a,
      name: 'Address Configuration Error',
      severity: 'critical',
      server: null,
      raisedAt: '2026-12-03T00:00:00Z',
      clearedAt: null,
    })),
    alarmHistory: [],
    counters: {
      configApplies: 1,
      configRejects: 0,
      failovers: 0,
      heartbeats: 0,
      malformedHeartbeats: 0,
    },
    bgp: report.announced ? { sessions: [], announced: report.announced } : null,
  });
}

const statuses = (entries: [IpfeSlot, AgentStatus | null][]): Statuses => new Map(entries);
const both = (a1: Report | null, a2: Report | null) =>
  statuses([
    ['A1', a1 && status('A1', a1)],
    ['A2', a2 && status('A2', a2)],
  ]);

describe('servingProblems: a save that no IPFE able to could serve', () => {
  it.each([
    [
      'active-active on two user-space agents',
      targetSet(ACTIVE_ACTIVE),
      both({}, {}),
      [
        {
          path: 'targetSets.0.activeActiveIpfes',
          message: `No IPFE could serve ${TSA}: only the direct data path serves Active-Active, and IPFE-A1 and IPFE-A2 run the user-space data path`,
        },
      ],
    ],
    [
      'active-active on a user-space and a kernel agent',
      targetSet(ACTIVE_ACTIVE),
      both({}, { dataplane: 'kernel' }),
      [
        {
          path: 'targetSets.0.activeActiveIpfes',
          message: `No IPFE could serve ${TSA}: only the direct data path serves Active-Active, and IPFE-A1 runs the user-space data path, IPFE-A2 the kernel data path`,
        },
      ],
    ],
    [
      'active-active where one agent is direct',
      targetSet(ACTIVE_ACTIVE),
      both({}, { dataplane: 'direct' }),
      [],
    ],
    [
      'active-active on a direct agent without a BGP speaker',
      targetSet(ACTIVE_ACTIVE),
      both(
        { dataplane: 'direct', activeActive: false },
        { dataplane: 'direct', activeActive: false },
      ),
      [
        {
          path: 'targetSets.0.activeActiveIpfes',
          message: `No IPFE could serve ${TSA}: only the direct data path serves Active-Active, and IPFE-A1 and IPFE-A2 run the direct data path`,
        },
      ],
    ],
    [
      'an older agent (no activeActive field) on the direct path',
      targetSet(ACTIVE_ACTIVE),
      both({ dataplane: 'direct' }, {}),
      [],
    ],
    [
      'active-active while A2 has not been heard from',
      targetSet(ACTIVE_ACTIVE),
      both({}, null),
      [],
    ],
    [
      'SCTP only on TCP-only agents',
      targetSet({ protocols: 'sctp' }),
      both({}, {}),
      [
        {
          path: 'targetSets.0.protocols',
          message: `No IPFE could serve ${TSA}: IPFE-A1 and IPFE-A2 run the user-space data path, which does not forward SCTP`,
        },
      ],
    ],
    [
      'TCP and SCTP on TCP-only agents (TCP is served)',
      targetSet({ protocols: 'both' }),
      both({}, {}),
      [],
    ],
    [
      'SCTP only where the standby forwards it',
      targetSet({ protocols: 'sctp' }),
      both({}, { dataplane: 'direct' }),
      [],
    ],
    ['a disabled Target Set', targetSet({ ...ACTIVE_ACTIVE, disabled: true }), both({}, {}), []],
    ['no agent heard from', targetSet(ACTIVE_ACTIVE), both(null, null), []],
  ])('%s', (_what, ts, reports, expected) => {
    const problems = servingProblems(configWith(ts), reports);
    expect(problems.map(({ path, message }) => ({ path, message }))).toEqual(expected);
  });

  it('refuses only what a change breaks, not what was already unserved', () => {
    const dark = targetSet(ACTIVE_ACTIVE);
    const running = configWith(dark);
    const edited = configWith({ ...dark, deleteAgeSeconds: 700 });
    expect(newServingProblems(running, edited, both({}, {}))).toEqual([]);
    const another = configWith(dark, {
      ...dark,
      number: 3,
      primary: { address: '127.0.0.102', activeIpfe: 'A1' },
    });
    expect(newServingProblems(running, another, both({}, {})).map((p) => p.path)).toEqual([
      'targetSets.1.activeActiveIpfes',
    ]);
  });
});

describe('unservedTsas: what no IPFE serves now', () => {
  const active = (tsa = TSA) => ({ owned: [{ tsa, targetSet: 2, role: 'active' as const }] });
  it.each([
    ['A1 holds it as active', targetSet(), both(active(), {}), []],
    [
      'A1 holds it as standby only',
      targetSet(),
      both({ owned: [{ tsa: TSA, targetSet: 2, role: 'standby' }] }, {}),
      [`no IPFE holds ${TSA}`],
    ],
    ['nobody holds it', targetSet(), both({}, {}), [`no IPFE holds ${TSA}`]],
    [
      'active-active owned but not announced',
      targetSet(ACTIVE_ACTIVE),
      both(
        { dataplane: 'direct', ...active(), announced: [] },
        { dataplane: 'direct', announced: [] },
      ),
      ['nothing is announced over BGP yet'],
    ],
    [
      'active-active announced by A2',
      targetSet(ACTIVE_ACTIVE),
      both({ dataplane: 'direct' }, { dataplane: 'direct', ...active(), announced: [`${TSA}/32`] }),
      [],
    ],
    [
      'active-active on user-space agents: the agent says why',
      targetSet(ACTIVE_ACTIVE),
      both(
        {
          alarms: [
            {
              code: 5002,
              targetSet: 2,
              text: 'Target Set 2 is active-active but nothing is announced: only the direct data path serves it',
            },
          ],
        },
        {},
      ),
      [
        'Target Set 2 is active-active but nothing is announced: only the direct data path serves it',
      ],
    ],
    [
      'SCTP only held on a TCP-only agent',
      targetSet({ protocols: 'sctp' }),
      both(active(), {}),
      [`no IPFE holds ${TSA}`],
    ],
    [
      'its IPFEs do not answer, another agent does',
      targetSet(),
      statuses([
        ['A1', null],
        ['A2', null],
        ['B1', status('B1')],
      ]),
      ['IPFE-A1 and IPFE-A2 do not answer'],
    ],
    ['a disabled Target Set', targetSet({ disabled: true }), both({}, {}), []],
    ['no agent has reported at all', targetSet(), both(null, null), []],
  ])('%s', (_what, ts, reports, reasons) => {
    expect(unservedTsas(configWith(ts), reports).map((u) => u.reason)).toEqual(reasons);
  });

  it('names the Target Set and each TSA nobody serves', () => {
    const ts = targetSet({ secondary: { address: '127.0.0.102', activeIpfe: 'A2' } });
    expect(unservedTsas(configWith(ts), both(active(), {}))).toEqual([
      { targetSet: 2, tsa: '127.0.0.102', reason: 'no IPFE holds 127.0.0.102' },
    ]);
  });
});
