import type { EngineStatus, ServerStatus } from '@ipfe/engine';
import { describe, expect, it } from 'vitest';
import { ALARM_RULES, type AgentAlarmCode, type AlarmInputs } from './alarm-rules.ts';
import { DEFAULT_HOST_THRESHOLDS, thresholdOf } from './host-resources.ts';
import { testDocument } from './testing.ts';

const server = (address: string, state: ServerStatus['state'] = 'normal'): ServerStatus => ({
  address,
  state,
  since: 0,
  weight: 100,
  load: null,
  recent: 0,
  active: 0,
});

const status = (
  sets: { number: number; servers: ServerStatus[]; activeBindings?: number; disabled?: boolean }[],
): EngineStatus => ({
  revision: 1,
  connections: 0,
  maxConnections: 1000,
  targetSets: sets.map((ts) => ({
    number: ts.number,
    disabled: ts.disabled ?? false,
    algorithm: 'hash',
    activeBindings: ts.activeBindings ?? ts.servers.length,
    servers: ts.servers,
  })),
});

/** A1 serving Target Set 1, both servers up, on the user-space path: no alarm at all. */
const base = (): AlarmInputs => ({
  slot: 'A1',
  document: testDocument(),
  status: status([{ number: 1, servers: [server('10.0.0.1'), server('10.0.0.2')] }]),
  ownedSets: new Set([1]),
  dataPath: 'userspace',
  forwards: ['tcp'],
  bgp: null,
  linkDown: null,
  addressFailures: [],
  bindFailures: [],
  rulesError: null,
  stateSync: null,
  outOfBalance: [],
  host: {
    readings: { cpuPct: 12, memoryPct: 40, diskPct: 30 },
    thresholds: DEFAULT_HOST_THRESHOLDS,
  },
  ports: [],
  isActive: () => false,
  now: 10_000,
});

const host = (
  readings: Partial<{ cpuPct: number | null; memoryPct: number | null; diskPct: number | null }>,
) => ({
  readings: { cpuPct: 12, memoryPct: 40, diskPct: 30, ...readings },
  thresholds: { ...DEFAULT_HOST_THRESHOLDS, cpu: thresholdOf(80) },
});

const activeActive = testDocument(1, (c) => {
  Object.assign(c.targetSets[0]!, { serving: 'activeActive', activeActiveIpfes: ['A1', 'A2'] });
});
const withBgp = testDocument(1, (c) => {
  Object.assign(c.targetSets[0]!, { serving: 'activeActive', activeActiveIpfes: ['A1', 'A2'] });
  Object.assign(c.options, {
    bgp: { asn: 65001, peers: [{ address: '192.0.2.1', asn: 65000 }] },
  });
});
const sctpOnly = testDocument(1, (c) => {
  c.targetSets[0]!.protocols = 'sctp';
});

const wanted = (code: AgentAlarmCode, inputs: AlarmInputs) =>
  ALARM_RULES.find((r) => r.code === code)!.wanted(inputs);

describe('alarm rules', () => {
  it('are evaluated in the order the active list has always had', () => {
    expect(ALARM_RULES.map((r) => r.code)).toEqual([
      5152, 5001, 5005, 5009, 5002, 5004, 5003, 5008, 5007, 5100, 5013, 5101, 5103, 5102, 5153,
    ]);
  });

  it('raise nothing while every owned server is up and everything is forwarded', () => {
    for (const rule of ALARM_RULES) expect(rule.wanted(base())).toEqual([]);
  });

  it.each<[string, AgentAlarmCode, Partial<AlarmInputs>, unknown[]]>([
    [
      'a BGP session not established',
      5152,
      {
        bgp: {
          failure: null,
          downSessions: [{ peer: '192.0.2.1', state: 'connecting', bfd: 'down' }],
        },
      },
      [{ server: '192.0.2.1', text: 'BGP session to 192.0.2.1 is connecting (BFD down)' }],
    ],
    [
      'an offline server of an owned Target Set',
      5001,
      { status: status([{ number: 1, servers: [server('10.0.0.1', 'offline')] }]) },
      [{ targetSet: 1, server: '10.0.0.1', text: 'Application server 10.0.0.1 is offline' }],
    ],
    [
      'not an offline server of a Target Set this node does not serve',
      5001,
      { status: status([{ number: 2, servers: [server('10.0.0.3', 'offline')] }]) },
      [],
    ],
    [
      'not an offline server of a disabled Target Set',
      5001,
      {
        status: status([{ number: 1, disabled: true, servers: [server('10.0.0.1', 'offline')] }]),
      },
      [],
    ],
    [
      'a server in stasis',
      5005,
      { status: status([{ number: 1, servers: [server('10.0.0.2', 'halting')] }]) },
      [{ targetSet: 1, server: '10.0.0.2', text: 'Application server 10.0.0.2 reports halting' }],
    ],
    [
      'an owned Target Set no server of which takes new connections',
      5009,
      { status: status([{ number: 1, activeBindings: 0, servers: [server('10.0.0.1')] }]) },
      [{ targetSet: 1, text: 'No server of Target Set 1 can take new connections' }],
    ],
    [
      'the TSA-facing link down, with the reason link health gives',
      5153,
      { linkDown: { device: 'eth0', reason: 'no carrier on eth0 (operstate lowerlayerdown)' } },
      [{ text: 'The TSA-facing link eth0 is down: no carrier on eth0 (operstate lowerlayerdown)' }],
    ],
    [
      'a TSA the interface refuses',
      5002,
      { addressFailures: [{ address: '192.0.2.100', error: 'EPERM' }] },
      [{ server: '192.0.2.100', text: 'Cannot hold TSA 192.0.2.100 on the interface (EPERM)' }],
    ],
    [
      'a TSA:port that cannot be listened on',
      5002,
      { bindFailures: [{ tsa: '192.0.2.100', port: 3868, targetSet: 1, error: 'EADDRINUSE' }] },
      [
        {
          targetSet: 1,
          server: '192.0.2.100:3868',
          text: 'Cannot listen on 192.0.2.100:3868 (EADDRINUSE)',
        },
      ],
    ],
    [
      'an owned SCTP-only Target Set on a path without SCTP',
      5002,
      { document: sctpOnly },
      [{ targetSet: 1, text: 'Target Set 1 is SCTP only: SCTP is not forwarded on this node' }],
    ],
    [
      'not an SCTP-only Target Set on a path with SCTP',
      5002,
      { document: sctpOnly, forwards: ['tcp', 'sctp'] },
      [],
    ],
    [
      'an active-active Target Set on a path without BGP',
      5002,
      { document: activeActive, dataPath: 'kernel' },
      [
        {
          targetSet: 1,
          text: 'Target Set 1 is active-active but nothing is announced: only the direct data path serves it (this node runs the kernel path)',
        },
      ],
    ],
    [
      'an active-active Target Set with BGP not configured',
      5002,
      { document: activeActive, bgp: { failure: null, downSessions: [] } },
      [
        {
          targetSet: 1,
          text: 'Target Set 1 is active-active but nothing is announced: Options › BGP is not configured',
        },
      ],
    ],
    [
      'an active-active Target Set the speaker fails for',
      5002,
      { document: withBgp, bgp: { failure: 'FRR is not installed', downSessions: [] } },
      [
        {
          targetSet: 1,
          text: 'Target Set 1 is active-active but nothing is announced: FRR is not installed',
        },
      ],
    ],
    [
      'not an active-active Target Set a working speaker announces',
      5002,
      { document: withBgp, bgp: { failure: null, downSessions: [] } },
      [],
    ],
    [
      'not an active-active Target Set of other IPFEs',
      5002,
      { document: activeActive, slot: 'B1' },
      [],
    ],
    [
      'a server the balance watch finds above its share',
      5008,
      {
        outOfBalance: [
          { targetSet: 1, server: '10.0.0.1', text: 'took 90 %', side: 'high' },
          { targetSet: 1, server: '10.0.0.2', text: 'took 10 %', side: 'low' },
        ],
      },
      [{ targetSet: 1, server: '10.0.0.1', text: 'took 90 %' }],
    ],
    [
      'a server the balance watch finds below its share',
      5007,
      {
        outOfBalance: [
          { targetSet: 1, server: '10.0.0.1', text: 'took 90 %', side: 'high' },
          { targetSet: 1, server: '10.0.0.2', text: 'took 10 %', side: 'low' },
        ],
      },
      [{ targetSet: 1, server: '10.0.0.2', text: 'took 10 %' }],
    ],
    [
      'forwarding rules nft refused',
      5004,
      { rulesError: 'Error: Could not process rule: No such file or directory' },
      [
        {
          text: 'The forwarding rules could not be installed: Error: Could not process rule: No such file or directory',
        },
      ],
    ],
    [
      'connection state not shared with the mate',
      5003,
      { stateSync: 'conntrackd stopped (exit SIGKILL)' },
      [{ text: 'Connection state is not shared with the mate: conntrackd stopped (exit SIGKILL)' }],
    ],
    [
      'a port at 90 % of the Global Packet Rate Limit (500,000 packets/s)',
      5100,
      { ports: [{ port: 3868, pps: 450_000, droppedPps: 0, lastDropAt: null }] },
      [
        {
          server: 'port 3868',
          text: 'Port 3868 takes 450,000 packets/s, 90 % of the Global Packet Rate Limit (500,000 packets/s)',
        },
      ],
    ],
    [
      'a port that dropped packets 2 s ago',
      5013,
      { ports: [{ port: 3868, pps: 600_000, droppedPps: 100_000, lastDropAt: 8_000 }] },
      [
        {
          server: 'port 3868',
          text: 'Port 3868: 100,000 packets/s above the Global Packet Rate Limit (500,000 packets/s) dropped',
        },
      ],
    ],
    [
      'a port that last dropped 5 s ago',
      5013,
      { ports: [{ port: 3868, pps: 300_000, droppedPps: 0, lastDropAt: 5_000 }] },
      [],
    ],
    [
      'CPU busy at its threshold',
      5101,
      { host: host({ cpuPct: 80 }) },
      [{ text: 'CPU busy: 80.0 % (threshold 80 %)' }],
    ],
    ['CPU just below its threshold', 5101, { host: host({ cpuPct: 79.9 }) }, []],
    [
      'CPU raised and still above its clearing level',
      5101,
      { host: host({ cpuPct: 76 }), isActive: (code) => code === 5101 },
      [{ text: 'CPU busy: 76.0 % (threshold 80 %)' }],
    ],
    [
      'CPU raised and now below its clearing level',
      5101,
      { host: host({ cpuPct: 74.9 }), isActive: (code) => code === 5101 },
      [],
    ],
    ['CPU not read yet', 5101, { host: host({ cpuPct: null }) }, []],
    [
      'memory in use at 95 %',
      5103,
      { host: host({ memoryPct: 95 }) },
      [{ text: 'Memory in use: 95.0 % (threshold 90 %)' }],
    ],
    [
      'the state disk at 91 %',
      5102,
      { host: host({ diskPct: 91 }) },
      [{ text: 'The state disk in use: 91.0 % (threshold 90 %)' }],
    ],
  ])('%s raises %i', (_name, code, change, expected) => {
    expect(wanted(code, { ...base(), ...change })).toEqual(expected);
  });
});
