import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReporter, type Reporter } from '@ipfe/reporter';
import type { HealthView, IpfeView, OamMember } from '@ipfe/schema';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawnAgent } from './agent-process.ts';
import {
  ADMIN_PASSWORD,
  addUser,
  login,
  PASSWORD,
  startApp,
  testEngine,
  waitFor,
  type Client,
  type TestApp,
} from './helpers.ts';
import { call, postSession, spawnOam, type HttpSession } from './oam-process.ts';
import { createDatabase } from './postgres-server.ts';
import { startSnmptrapd, type Snmptrapd } from './snmptrapd.ts';

/**
 * Two OAMs on one PostgreSQL database (decision 022): OAM P, a real process started first, leads;
 * OAM B, an app of this process, follows. Real agents and application servers on 127.41.0.0/16, a
 * real snmptrapd counting the traps.
 */
const TOKEN = 'cluster-test-token-0123456789abcdefghijklmnop';
const P_HOST = '127.41.0.1';
const A1 = '127.41.0.11';
const A2 = '127.41.0.12';
const TSA = '127.41.0.100';
const SERVERS = ['127.41.1.1', '127.41.1.2'];
const TRAPD = { host: '127.41.9.1', port: 10162 };
const IPFES = { ipfe: { A1: { address: A1 }, A2: { address: A2 } } };

describe.runIf(testEngine() === 'postgres')('several OAMs on one PostgreSQL store', () => {
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  const agents: Partial<Record<'A1' | 'A2', ChildProcess>> = {};
  const agentDirs = { A1: tempDir('ipfe-cluster-a1-'), A2: tempDir('ipfe-cluster-a2-') };
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let oamP: ChildProcess;
  let pPort: number;
  let b: TestApp;
  let adminB: Client;
  let reporters: Reporter[];
  let trapd: Snmptrapd;

  function startAgent(slot: 'A1' | 'A2') {
    agents[slot] = spawnAgent({
      slot,
      control: `${slot === 'A1' ? A1 : A2}:8701`,
      stateDir: agentDirs[slot],
      token: TOKEN,
    });
  }

  /** OAM P's answer to a request over HTTP, as a browser or the CLI would send it. */
  const callP = (method: string, path: string, session?: HttpSession) =>
    call(`http://${P_HOST}:${pPort}`, session ?? null, method, path);
  const loginP = (username: string, password: string) =>
    postSession(`http://${P_HOST}:${pPort}`, username, password);

  const ipfeB = async () => (await adminB.get('/api/ipfe')).json() as IpfeView;
  /** Both agents run the latest revision, as OAM B shows it. */
  const allApplied = async () => {
    const view = await ipfeB();
    return view.items
      .filter((s) => s.configured)
      .every((s) => s.appliedRevision === view.latestRevision && s.state === 'synced');
  };
  /** The traps snmptrapd received of alarm `id` (its id in the alarm log). */
  const trapsOf = (kind: 'Raised' | 'Cleared', id: number) =>
    trapd.traps.filter(
      (trap) =>
        trap.varbinds['SNMPv2-MIB::snmpTrapOID.0'] === `OID: IPFE-OAM-MIB::ipfeAlarm${kind}` &&
        trap.varbinds['IPFE-OAM-MIB::ipfeAlarmId.0'] === `Gauge32: ${id}`,
    );
  const alarmLog = () => b.app.store.db.selectFrom('alarms').selectAll().orderBy('id').execute();
  /** Every alarm of the log with its traps: one when raised, one more when cleared. */
  const trapsPerAlarm = async () =>
    (await alarmLog()).map((a) => ({
      id: a.id,
      raised: trapsOf('Raised', a.id).length,
      cleared: trapsOf('Cleared', a.id).length,
      expected: { raised: 1, cleared: a.cleared_at === null ? 0 : 1 },
    }));
  const everyTrapSent = async () =>
    (await trapsPerAlarm()).every(
      (a) => a.raised === a.expected.raised && a.cleared === a.expected.cleared,
    );

  beforeAll(async () => {
    reporters = await Promise.all(
      SERVERS.map((host) =>
        createReporter({ listen: { host, port: 9675 }, mpsCapacity: 100, connectionCapacity: 100 }),
      ),
    );
    trapd = await startSnmptrapd(`udp:${TRAPD.host}:${TRAPD.port}`, [
      'authCommunity log ipfe-traps',
    ]);
    database = await createDatabase(inject('postgresAdminUrl')!);
    pPort = 20000 + (process.pid % 20000);
    oamP = spawnOam({
      host: P_HOST,
      port: pPort,
      dataDir: tempDir('ipfe-cluster-p-'),
      databaseUrl: database.url,
      agentToken: TOKEN,
    }).child;
    await waitFor(
      'OAM P leads',
      async () => ((await callP('GET', '/api/health')).body as HealthView).role === 'leader',
      60_000,
    );
    b = await startApp({
      databaseUrl: database.url,
      agentToken: TOKEN,
      agentSync: { enabled: true, pollIntervalMs: 200, backoffMaxMs: 500, startGraceMs: 0 },
    });
    await b.app.ready();
    adminB = await login(b.app);
    const ok = (r: { statusCode: number; body: string }) =>
      expect(r.statusCode, r.body).toBeLessThan(300);
    ok(await adminB.edit('/api/options', IPFES));
    ok(await adminB.post('/api/xsi-networks', { name: 'lab', cidr: '127.41.0.0/16' }));
    for (const [i, address] of SERVERS.entries())
      ok(await adminB.post('/api/app-servers', { name: `mp${i + 1}`, addresses: [address] }));
    ok(
      await adminB.post('/api/target-sets', {
        family: 'ipv4',
        algorithm: 'hash',
        primary: { address: TSA },
        servers: SERVERS.map((address) => ({ address })),
      }),
    );
    ok(
      await adminB.edit('/api/options/snmp-traps', {
        destinations: [{ ...TRAPD, version: 'v2c', community: 'ipfe-traps' }],
      }),
    );
    startAgent('A1');
    startAgent('A2');
  }, 90_000);

  afterAll(async () => {
    oamP?.kill('SIGKILL');
    for (const child of Object.values(agents)) child?.kill('SIGKILL');
    await b?.close();
    await database?.drop();
    await Promise.all((reporters ?? []).map((r) => r.close()));
    await trapd?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('has exactly one leader, and each OAM lists both', async () => {
    expect((await callP('GET', '/api/health')).body).toMatchObject({
      status: 'ok',
      store: 'postgres',
      role: 'leader',
    });
    expect((await adminB.get('/api/health')).json()).toMatchObject({
      store: 'postgres',
      role: 'follower',
    });
    const listed = await waitFor('both OAMs listed', async () => {
      const items = (await adminB.get('/api/oams')).json().items as OamMember[];
      return items.length === 2 && items.every((m) => m.present) && items[1]!.address !== 'vm'
        ? items
        : undefined;
    });
    expect(listed.map((m) => [m.self, m.role])).toEqual([
      [true, 'follower'],
      [false, 'leader'],
    ]);
    expect(listed[1]!.address).toBe(`${P_HOST}:${pPort}`);
  });

  it('opens a session made on one OAM on the other, CSRF token included', async () => {
    const session = await loginP('admin', ADMIN_PASSWORD);
    expect(session.status).toBe(200);
    const headers = { cookie: session.cookie, 'x-csrf-token': session.csrf };
    const whoami = await b.app.inject({ method: 'GET', url: '/api/session', headers });
    expect(whoami.json()).toMatchObject({ user: { name: 'admin', role: 'admin' } });
    const made = await b.app.inject({
      method: 'POST',
      url: '/api/xsi-networks',
      headers,
      payload: { name: 'other', cidr: '127.42.0.0/16' },
    });
    expect(made.statusCode, made.body).toBe(201);
    // Logged out on B: the cookie opens nothing on P either.
    await b.app.inject({ method: 'DELETE', url: '/api/session', headers });
    expect((await callP('GET', '/api/xsi-networks', session)).status).toBe(401);
  });

  it('counts failed logins through both OAMs against the same user', async () => {
    await addUser(b.app, 'otto', 'operator');
    for (let i = 0; i < 3; i++) expect((await loginP('otto', 'wrong-password')).status).toBe(401);
    for (let i = 0; i < 2; i++) {
      const wrong = await b.app.inject({
        method: 'POST',
        url: '/api/session',
        payload: { username: 'otto', password: 'wrong-password' },
      });
      expect(wrong.statusCode).toBe(401);
    }
    // The fifth failure was on B; the right password on P is refused all the same.
    expect((await loginP('otto', PASSWORD)).status).toBe(429);
  });

  it('has a commit made through the follower pushed by the leader to every agent', async () => {
    await waitFor('both agents run the latest revision', allApplied, 30_000);
    const before = (await ipfeB()).latestRevision;
    const edit = await adminB.edit('/api/options', { ...IPFES, connectTimeoutS: 4 });
    expect(edit.statusCode, edit.body).toBe(200);
    await waitFor('both agents run the new revision', async () => {
      const view = await ipfeB();
      return view.latestRevision === before + 1 && (await allApplied());
    });
  });

  it('hands over to the follower when the leader is killed, sending every trap once', async () => {
    // A2 goes away: the leader raises 5151 and sends its trap.
    agents.A2!.kill('SIGKILL');
    const unreachable = await waitFor('5151 of A2 raised by P', async () => {
      const alarm = (await alarmLog()).find(
        (a) => a.code === 5151 && a.slot === 'A2' && a.cleared_at === null,
      );
      return alarm && trapsOf('Raised', alarm.id).length > 0 ? alarm : undefined;
    });

    // P stops (frozen, its session still open): a trap left in the outbox meanwhile, as by a
    // leader that died between its alarm's commit and the send, waits for the next leader.
    oamP.kill('SIGSTOP');
    await b.app.store.transaction((trx) =>
      trx
        .insertInto('trap_outbox')
        .values({
          event: JSON.stringify({
            kind: 'raised',
            alarm: {
              id: 999_001,
              slot: 'B1',
              code: 5013,
              name: 'Throttling Traffic',
              severity: 'major',
              targetSet: null,
              server: null,
              text: 'left by the old leader',
              raisedAt: new Date().toISOString(),
              clearedAt: null,
            },
          }),
          created_at: new Date().toISOString(),
        })
        .execute(),
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(trapsOf('Raised', 999_001)).toEqual([]);
    expect(b.app.cluster.role).toBe('follower');

    const killedAt = performance.now();
    oamP.kill('SIGKILL');
    await waitFor('B leads', async () => b.app.cluster.role === 'leader', 10_000);
    console.log(`leader takeover after SIGKILL: ${Math.round(performance.now() - killedAt)} ms`);
    await waitFor('the trap the old leader left', async () => trapsOf('Raised', 999_001).length);

    // A2 back: the new leader clears 5151 and says so.
    startAgent('A2');
    await waitFor('5151 cleared by B', async () => trapsOf('Cleared', unreachable.id).length);
    const edit = await adminB.edit('/api/options', { ...IPFES, connectTimeoutS: 5 });
    expect(edit.statusCode, edit.body).toBe(200);
    await waitFor('both agents run the latest revision', allApplied, 30_000);
    // Every alarm either leader logged has had its traps, none twice; the outbox is empty.
    await waitFor('every trap sent', everyTrapSent);
    await new Promise((r) => setTimeout(r, 1000));
    const perAlarm = await trapsPerAlarm();
    expect(perAlarm.map((a) => [a.id, a.raised, a.cleared])).toEqual(
      perAlarm.map((a) => [a.id, a.expected.raised, a.expected.cleared]),
    );
    expect(trapsOf('Raised', 999_001)).toHaveLength(1);
    expect(await b.app.store.db.selectFrom('trap_outbox').selectAll().execute()).toEqual([]);
  }, 60_000);
});
