import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReporter, type Reporter } from '@ipfe/reporter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFICATIONS, OBJECT_OIDS } from '../src/services/snmp-trap-varbinds.ts';
import {
  addUser,
  fieldsOf,
  login,
  snapshot,
  startApp,
  waitFor,
  type Client,
  type TestApp,
} from './helpers.ts';
import { MIB_DIRS, startSnmptrapd, type ReceivedTrap, type Snmptrapd } from './snmptrapd.ts';
import { useTestApp } from './test-app.ts';

const TRAPS = '/api/options/snmp-traps';
const MIB = ['-M', `+:${MIB_DIRS.join(':')}`, '-m', 'IPFE-OAM-MIB'];

describe('the MIB module deploy/snmp/IPFE-OAM-MIB.txt', () => {
  const translate = (name: string) => {
    const run = spawnSync('snmptranslate', [...MIB, '-On', `IPFE-OAM-MIB::${name}`], {
      encoding: 'utf8',
    });
    // Net-SNMP's first run on a machine says it made its state folder: not a problem of the MIB.
    const errors = run.stderr
      .split('\n')
      .filter((line) => !/^Created directory: /.test(line))
      .join('\n')
      .trim();
    return { oid: run.stdout.trim(), errors, status: run.status };
  };

  it('loads in snmptranslate and names each notification at the OID the OAM sends', () => {
    expect(translate('ipfeAlarmRaised')).toEqual({
      oid: `.${NOTIFICATIONS.raised}`,
      errors: '',
      status: 0,
    });
    expect(translate('ipfeAlarmCleared')).toEqual({
      oid: `.${NOTIFICATIONS.cleared}`,
      errors: '',
      status: 0,
    });
  });

  it('defines every object the traps carry, at the OID of its varbind', () => {
    for (const [name, oid] of Object.entries(OBJECT_OIDS))
      expect(translate(`${name}.0`), name).toEqual({ oid: `.${oid}`, errors: '', status: 0 });
  });
});

describe('trap destinations (GET/PUT /api/options/snmp-traps)', () => {
  const { t, admin } = useTestApp();
  const v2c = { host: '127.162.9.1', version: 'v2c', community: 'c0mmunity-secret' };
  const v3 = {
    host: '127.162.9.2',
    port: 10162,
    version: 'v3',
    user: 'ipfe-nms',
    securityLevel: 'authPriv',
    authProtocol: 'sha256',
    authKey: 'auth-key-secret',
    privProtocol: 'aes',
    privKey: 'priv-key-secret',
  };
  const save = async (destinations: unknown[]) => {
    const etag = (await admin.get(TRAPS)).headers.etag as string;
    return admin.put(TRAPS, { destinations }, etag);
  };

  it('starts with none and the OAM’s SNMPv3 engine ID', async () => {
    const response = await admin.get(TRAPS);
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBeTruthy();
    expect(response.json()).toEqual({
      engineId: expect.stringMatching(/^80007ed905[0-9a-f]{16}$/),
      destinations: [],
    });
  });

  it('saves destinations and never answers their secrets, only that they are set', async () => {
    const before = await snapshot(t.app);
    const response = await save([v2c, v3]);
    expect(response.statusCode, response.body).toBe(200);
    const expected = [
      { host: '127.162.9.1', port: 162, version: 'v2c', communitySet: true },
      {
        host: '127.162.9.2',
        port: 10162,
        version: 'v3',
        user: 'ipfe-nms',
        securityLevel: 'authPriv',
        authProtocol: 'sha256',
        authKeySet: true,
        privProtocol: 'aes',
        privKeySet: true,
      },
    ];
    expect(response.json().destinations).toEqual(expected);
    const read = await admin.get(TRAPS);
    expect(read.json().destinations).toEqual(expected);
    for (const body of [response.body, read.body])
      for (const secret of ['c0mmunity-secret', 'auth-key-secret', 'priv-key-secret'])
        expect(body).not.toContain(secret);
    // Kept in the OAM alone: no revision for the agents, nothing in the configuration.
    expect(await snapshot(t.app)).toEqual(before);
    const exported = await admin.get('/api/revisions');
    expect(exported.body).not.toContain('127.162.9.1');
  });

  it('keeps a stored secret that is left out, but not for another user or address', async () => {
    expect((await save([v2c, v3])).statusCode).toBe(200);
    const { community: _c, ...v2cKept } = v2c;
    const { authKey: _a, privKey: _p, ...v3Kept } = v3;
    const kept = await save([v3Kept, v2cKept]);
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json().destinations.map((d: { host: string }) => d.host)).toEqual([
      '127.162.9.2',
      '127.162.9.1',
    ]);
    const before = (await admin.get(TRAPS)).headers.etag;
    const moved = await save([
      { ...v3Kept, user: 'someone-else' },
      { ...v2cKept, port: 1162 },
    ]);
    expect(moved.statusCode).toBe(400);
    expect(fieldsOf(moved)).toEqual({
      'destinations.0.authKey': 'Auth key is required',
      'destinations.0.privKey': 'Privacy key is required',
      'destinations.1.community': 'Community is required',
    });
    expect((await admin.get(TRAPS)).headers.etag).toBe(before);
  });

  it.each([
    [{ ...v2c, host: 'nms.example' }, 'destinations.0.host', 'Trap destination address must be'],
    [{ ...v2c, port: 0 }, 'destinations.0.port', 'Trap destination port must be'],
    [{ ...v2c, version: 'v1' }, 'destinations.0.version', 'Version must be one of: v2c, v3'],
    [{ host: '127.162.9.1' }, 'destinations.0.version', 'Version is required'],
    [{ ...v2c, community: '' }, 'destinations.0.community', 'Community must be'],
    [{ ...v2c, colour: 'red' }, 'destinations.0.colour', 'colour is not a field here'],
    [{ ...v3, privProtocol: 'des' }, 'destinations.0.privProtocol', 'Privacy protocol des cannot'],
    [{ ...v3, authProtocol: 'sha1' }, 'destinations.0.authProtocol', 'Auth protocol must be one'],
    [{ ...v3, authKey: 'short' }, 'destinations.0.authKey', 'Auth key must be 8–128'],
    [{ ...v3, privProtocol: null }, 'destinations.0.privProtocol', 'Privacy protocol is required'],
    [
      { ...v3, securityLevel: 'authNoPriv' },
      'destinations.0.privProtocol',
      'Privacy protocol is not used at security level authNoPriv',
    ],
    [{ ...v3, securityLevel: 'secret' }, 'destinations.0.securityLevel', 'Security level must'],
    [{ ...v3, user: undefined }, 'destinations.0.user', 'User name is required'],
  ])('refuses %j naming %s, changing nothing', async (destination, path, message) => {
    const before = (await admin.get(TRAPS)).headers.etag;
    const response = await save([destination]);
    expect(response.statusCode, response.body).toBe(400);
    expect(fieldsOf(response)[path]).toContain(message);
    expect((await admin.get(TRAPS)).headers.etag).toBe(before);
    expect((await admin.get(TRAPS)).json().destinations).toEqual([]);
  });

  it('refuses two destinations at one address and port, and more than 8', async () => {
    const twice = await save([v2c, { ...v2c, port: 162, community: 'other-one' }]);
    expect(twice.statusCode).toBe(400);
    expect(fieldsOf(twice)).toEqual({
      'destinations.1.port': 'Destination 1 already sends to 127.162.9.1 port 162',
    });
    const many = await save(Array.from({ length: 9 }, (_, i) => ({ ...v2c, port: 2000 + i })));
    expect(many.statusCode).toBe(400);
    expect(fieldsOf(many)).toEqual({ destinations: 'At most 8 trap destinations' });
    const broken = await admin.request({
      method: 'PUT',
      url: TRAPS,
      headers: { 'content-type': 'application/json', 'if-match': '"x"' },
      payload: '{"destinations": [',
    });
    expect(broken.statusCode).toBe(400);
  });

  it.each([
    [[], ''],
    [{}, 'destinations'],
    [{ destinations: [null] }, 'destinations.0'],
    [{ destinations: [42] }, 'destinations.0'],
    [{ destinations: {} }, 'destinations'],
    [{ destinations: [{ ...v2c, host: '1'.repeat(100_000) }] }, 'destinations.0.host'],
    [{ destinations: [{ ...v2c, community: 'x\u0000y' }] }, 'destinations.0.community'],
    [{ destinations: [{ ...v3, user: 'ünïcode' }] }, 'destinations.0.user'],
    [{ destinations: [], extra: true }, 'extra'],
  ])(
    'answers 400 to hostile body %#, naming the field, and changes nothing',
    async (body, path) => {
      const before = (await admin.get(TRAPS)).headers.etag as string;
      const response = await admin.put(TRAPS, body, before);
      expect(response.statusCode, response.body).toBe(400);
      expect(Object.keys(fieldsOf(response))).toContain(path);
      expect((await admin.get(TRAPS)).headers.etag).toBe(before);
    },
  );

  it('needs the ETag it read, and refuses a stale one', async () => {
    const missing = await admin.put(TRAPS, { destinations: [v2c] });
    expect(missing.statusCode).toBe(428);
    const etag = (await admin.get(TRAPS)).headers.etag as string;
    expect((await admin.put(TRAPS, { destinations: [v2c] }, etag)).statusCode).toBe(200);
    const stale = await admin.put(TRAPS, { destinations: [] }, etag);
    expect(stale.statusCode).toBe(412);
    expect(stale.body).not.toContain('c0mmunity-secret');
    expect((await admin.get(TRAPS)).json().destinations).toHaveLength(1);
  });

  it('lets only admins change them; any user may read them', async () => {
    await addUser(t.app, 'olive', 'operator');
    const operator = await login(t.app, 'olive', 'password-123');
    const read = await operator.get(TRAPS);
    expect(read.statusCode).toBe(200);
    const change = await operator.put(TRAPS, { destinations: [v2c] }, read.headers.etag as string);
    expect(change.statusCode).toBe(403);
    expect((await admin.get(TRAPS)).json().destinations).toEqual([]);
  });
});

/**
 * The real flow: an IPFE the OAM cannot reach (alarm 5151), then a real agent whose Target Set has
 * a server that does not answer its heartbeat (alarm 5001), each raised and cleared, received by
 * two real snmptrapd (v2c, v3 authPriv). 127.162.0.0/16 is this file's.
 */
describe('traps of alarms raised and cleared', () => {
  const TOKEN = 'snmp-trap-test-token-0123456789abcdefghijkl';
  const A1 = '127.162.0.11';
  const TSA = '127.162.0.100';
  const SERVERS = ['127.162.1.1', '127.162.1.2'];
  const V2C = { host: '127.162.0.1', port: 16201 };
  const V3 = { host: '127.162.0.2', port: 16202 };
  const V6 = { host: '::1', port: 16203 };
  const agentBin = new URL('../../agent/bin/ipfe-agent.js', import.meta.url).pathname;
  const stateDir = mkdtempSync(join(tmpdir(), 'ipfe-snmp-a1-'));
  let t: TestApp;
  let admin: Client;
  let v2cReceiver: Snmptrapd;
  let v3Receiver: Snmptrapd;
  let v6Receiver: Snmptrapd;
  let agent: ChildProcess | undefined;
  const reporters: Reporter[] = [];

  const startReporter = async (host: string) =>
    reporters.push(
      await createReporter({
        listen: { host, port: 9675 },
        mpsCapacity: 100,
        connectionCapacity: 100,
      }),
    );

  beforeAll(async () => {
    t = await startApp({
      agentToken: TOKEN,
      // A1 is configured where no agent ever answers: alarmed without the start grace.
      agentSync: { enabled: true, pollIntervalMs: 200, backoffMaxMs: 500, startGraceMs: 0 },
    });
    await t.app.ready();
    admin = await login(t.app);
    const { engineId } = (await admin.get(TRAPS)).json() as { engineId: string };
    v2cReceiver = await startSnmptrapd(`udp:${V2C.host}:${V2C.port}`, [
      'authCommunity log ipfe-traps',
    ]);
    v3Receiver = await startSnmptrapd(`udp:${V3.host}:${V3.port}`, [
      `createUser -e 0x${engineId} ipfe-nms SHA-256 auth-key-secret AES priv-key-secret`,
      'authUser log ipfe-nms priv',
    ]);
    v6Receiver = await startSnmptrapd(`udp6:[${V6.host}]:${V6.port}`, [
      'authCommunity log ipfe-traps',
    ]);
    await startReporter(SERVERS[0]!);
  }, 60_000);

  afterAll(async () => {
    agent?.kill('SIGKILL');
    await t?.close();
    await Promise.all(reporters.map((r) => r.close()));
    await v2cReceiver?.stop();
    await v3Receiver?.stop();
    await v6Receiver?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const alarmTraps = (receiver: Snmptrapd, kind: 'Raised' | 'Cleared', number: number) =>
    receiver.traps.filter(
      (trap) =>
        trap.varbinds['SNMPv2-MIB::snmpTrapOID.0'] === `OID: IPFE-OAM-MIB::ipfeAlarm${kind}` &&
        trap.varbinds['IPFE-OAM-MIB::ipfeAlarmNumber.0'] === `Gauge32: ${number}`,
    );
  const received = (kind: 'Raised' | 'Cleared', number: number) =>
    waitFor(`${kind} ${number} at both receivers`, async () => {
      const v2c = alarmTraps(v2cReceiver, kind, number)[0];
      const v3 = alarmTraps(v3Receiver, kind, number)[0];
      return v2c && v3 ? { v2c, v3 } : undefined;
    });
  const field = (trap: ReceivedTrap, name: string) => trap.varbinds[`IPFE-OAM-MIB::${name}.0`];
  /** DateAndTime as snmptrapd prints it: "2026-12-1,16:51:48.1,+0:0". */
  const dateAndTime = (iso: string) => {
    const d = new Date(iso);
    return (
      `STRING: ${d.getUTCFullYear()}-${d.getUTCMonth() + 1}-${d.getUTCDate()},` +
      `${d.getUTCHours()}:${d.getUTCMinutes()}:${d.getUTCSeconds()}.` +
      `${Math.floor(d.getUTCMilliseconds() / 100)},+0:0`
    );
  };
  const alarms = async () =>
    (await admin.get('/api/alarms')).json() as {
      active: { id: number; code: number; raisedAt: string }[];
      history: { id: number; code: number; raisedAt: string; clearedAt: string }[];
    };

  it('sends each alarm raised and cleared to every destination, with its varbinds', async () => {
    const destinations = [
      { ...V2C, version: 'v2c', community: 'ipfe-traps' },
      { ...V6, version: 'v2c', community: 'ipfe-traps' },
      {
        ...V3,
        version: 'v3',
        user: 'ipfe-nms',
        securityLevel: 'authPriv',
        authProtocol: 'sha256',
        authKey: 'auth-key-secret',
        privProtocol: 'aes',
        privKey: 'priv-key-secret',
      },
      // Refused by the kernel (EACCES: broadcast): its failure must not stop the others.
      { host: '255.255.255.255', version: 'v2c', community: 'nobody' },
    ];
    const etag = (await admin.get(TRAPS)).headers.etag as string;
    const saved = await admin.put(TRAPS, { destinations }, etag);
    expect(saved.statusCode, saved.body).toBe(200);

    // IPFE A1 configured where no agent answers: the OAM raises 5151.
    const options = await admin.edit('/api/options', {
      ipfe: { A1: { address: A1 } },
      connectTimeoutS: 2,
    });
    expect(options.statusCode, options.body).toBe(200);
    const unreachable = await received('Raised', 5151);
    const logged = (await alarms()).active.find((a) => a.code === 5151)!;
    for (const [trap, security] of [
      [unreachable.v2c, 'TRAP2, SNMP v2c, community ipfe-traps'],
      [unreachable.v3, 'TRAP2, SNMP v3, user ipfe-nms, context '],
    ] as const) {
      expect(trap.security).toBe(security);
      expect(trap.varbinds).toMatchObject({
        'IPFE-OAM-MIB::ipfeAlarmId.0': `Gauge32: ${logged.id}`,
        'IPFE-OAM-MIB::ipfeAlarmName.0': 'STRING: IPFE Unreachable',
        'IPFE-OAM-MIB::ipfeAlarmSeverity.0': 'INTEGER: major(4)',
        'IPFE-OAM-MIB::ipfeAlarmIpfe.0': 'STRING: A1',
        'IPFE-OAM-MIB::ipfeAlarmTargetSet.0': 'Gauge32: 0',
        'IPFE-OAM-MIB::ipfeAlarmServer.0': 'STRING: ',
        'IPFE-OAM-MIB::ipfeAlarmRaisedAt.0': dateAndTime(logged.raisedAt),
      });
      expect(field(trap, 'ipfeAlarmText')).toMatch(/^STRING: IPFE A1 does not answer \(.+\)$/);
      expect(field(trap, 'ipfeAlarmClearedAt')).toBeUndefined();
    }
    const overIpv6 = await waitFor('5151 raised at the IPv6 receiver', async () =>
      alarmTraps(v6Receiver, 'Raised', 5151).at(0),
    );
    expect(field(overIpv6, 'ipfeAlarmId')).toBe(`Gauge32: ${logged.id}`);

    // The agent comes up with a Target Set of two servers, one without its reporter.
    const ok = (r: { statusCode: number; body: string }) =>
      expect(r.statusCode, r.body).toBeLessThan(300);
    ok(await admin.post('/api/xsi-networks', { name: 'lab', cidr: '127.162.0.0/16' }));
    for (const [i, address] of SERVERS.entries())
      ok(await admin.post('/api/app-servers', { name: `mp${i + 1}`, addresses: [address] }));
    ok(
      await admin.post('/api/target-sets', {
        family: 'ipv4',
        algorithm: 'hash',
        primary: { address: TSA },
        servers: SERVERS.map((address) => ({ address })),
      }),
    );
    agent = spawn(
      process.execPath,
      [agentBin, '--slot', 'A1', '--control', `${A1}:8701`, '--state-dir', stateDir],
      { env: { ...process.env, IPFE_AGENT_TOKEN: TOKEN, LOG_LEVEL: 'warn' }, stdio: 'ignore' },
    );
    const answered = await received('Cleared', 5151);
    const cleared = (await alarms()).history.find((a) => a.id === logged.id)!;
    for (const trap of [answered.v2c, answered.v3]) {
      expect(field(trap, 'ipfeAlarmId')).toBe(`Gauge32: ${logged.id}`);
      expect(field(trap, 'ipfeAlarmRaisedAt')).toBe(dateAndTime(logged.raisedAt));
      expect(field(trap, 'ipfeAlarmClearedAt')).toBe(dateAndTime(cleared.clearedAt));
    }

    const offline = await received('Raised', 5001);
    const backend = (await alarms()).active.find((a) => a.code === 5001)!;
    for (const trap of [offline.v2c, offline.v3]) {
      expect(trap.varbinds).toMatchObject({
        'IPFE-OAM-MIB::ipfeAlarmId.0': `Gauge32: ${backend.id}`,
        'IPFE-OAM-MIB::ipfeAlarmName.0': 'STRING: Backend Unavailable',
        'IPFE-OAM-MIB::ipfeAlarmSeverity.0': 'INTEGER: major(4)',
        'IPFE-OAM-MIB::ipfeAlarmIpfe.0': 'STRING: A1',
        'IPFE-OAM-MIB::ipfeAlarmTargetSet.0': 'Gauge32: 1',
        'IPFE-OAM-MIB::ipfeAlarmServer.0': `STRING: ${SERVERS[1]}`,
        'IPFE-OAM-MIB::ipfeAlarmText.0': `STRING: Application server ${SERVERS[1]} is offline`,
      });
    }

    // Its reporter starts: the agent clears 5001, and so does the trap.
    await startReporter(SERVERS[1]!);
    const online = await received('Cleared', 5001);
    for (const trap of [online.v2c, online.v3]) {
      expect(field(trap, 'ipfeAlarmId')).toBe(`Gauge32: ${backend.id}`);
      expect(field(trap, 'ipfeAlarmServer')).toBe(`STRING: ${SERVERS[1]}`);
      expect(field(trap, 'ipfeAlarmClearedAt')).toMatch(/^STRING: \d{4}-/);
    }

    // The broadcast destination failed every time, was counted, and stopped nothing.
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(
      /^ipfe_oam_snmp_traps_total\{notification="raised",outcome="sent"\} [1-9]/m,
    );
    expect(metrics).toMatch(
      /^ipfe_oam_snmp_traps_total\{notification="raised",outcome="failed"\} [1-9]/m,
    );
    expect(v2cReceiver.output() + v3Receiver.output() + v6Receiver.output()).not.toMatch(
      /error|unknown|fail/i,
    );
  }, 120_000);
});
