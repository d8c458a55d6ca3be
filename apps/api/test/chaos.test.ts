import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReporter, type Reporter } from '@ipfe/reporter';
import type { IpfeView } from '@ipfe/schema';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnAgent } from './agent-process.ts';
import { testEngine, waitFor } from './helpers.ts';
import {
  call,
  edit,
  postSession,
  spawnOam,
  type HttpSession,
  type OamProcess,
} from './oam-process.ts';
import { startAutoFailoverPair, type AutoFailoverPair } from './pg-auto-failover.ts';
import { startSnmptrapd, type Snmptrapd } from './snmptrapd.ts';

const hasPgAutoctl = spawnSync('pg_autoctl', ['--version']).status === 0;

/**
 * The control plane under chaos (issue 25 item 5): three OAM processes over a PostgreSQL pair
 * failed over by pg_auto_failover, real agents and application servers on 127.45.0.0/16, a real
 * snmptrapd counting traps, an operator committing all along through a random OAM. The leader
 * OAM and the PostgreSQL primary are SIGKILLed, then restarted.
 */
const TOKEN = 'chaos-test-token-0123456789abcdefghijklmnopqr';
const OAM_HOSTS = ['127.45.0.1', '127.45.0.2', '127.45.0.3'];
const OAM_PORT = 21000 + (process.pid % 10000);
const AGENT_HOSTS = { A1: '127.45.0.11', A2: '127.45.0.12' } as const;
const TSA = '127.45.0.100';
const SERVERS = ['127.45.1.1', '127.45.1.2'];
const TRAPD = { host: '127.45.9.1', port: 10163 };
const IPFES = { ipfe: { A1: { address: AGENT_HOSTS.A1 }, A2: { address: AGENT_HOSTS.A2 } } };

type Slot = keyof typeof AGENT_HOSTS;

/** What the operator's saves met: each answer's status, and the revision of each 2xx. */
interface Ledger {
  committed: number[];
  statuses: Map<number | 'no answer', number>;
  unexpected: string[];
  lastCommitAt: number;
}

describe.runIf(testEngine() === 'postgres' && hasPgAutoctl)(
  'three OAMs over a failing-over PostgreSQL pair',
  () => {
    const dirs: string[] = [];
    const tempDir = (prefix: string) => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    };
    const oamDirs = OAM_HOSTS.map(() => tempDir('ipfe-chaos-oam-'));
    const agentDirs = { A1: tempDir('ipfe-chaos-a1-'), A2: tempDir('ipfe-chaos-a2-') };
    const agents: Partial<Record<Slot, ChildProcess>> = {};
    const oams: (OamProcess | null)[] = [null, null, null];
    let pair: AutoFailoverPair;
    let reporters: Reporter[];
    let trapd: Snmptrapd;
    let session: HttpSession;

    const startOam = (i: number) => {
      oams[i] = spawnOam({
        host: OAM_HOSTS[i]!,
        port: OAM_PORT,
        dataDir: oamDirs[i]!,
        databaseUrl: pair.url,
        agentToken: TOKEN,
      });
    };
    const startAgent = (slot: Slot) => {
      agents[slot] = spawnAgent({
        slot,
        control: `${AGENT_HOSTS[slot]}:8701`,
        stateDir: agentDirs[slot],
        token: TOKEN,
      });
    };
    const living = () => oams.filter((o): o is OamProcess => o !== null);
    const anyOam = () => living()[Math.floor(Math.random() * living().length)]!;
    /** The OAM that says it leads, when exactly one does (an object: waitFor wants truthiness). */
    const leader = async (): Promise<{ i: number } | null> => {
      const roles = await Promise.all(oams.map(async (o) => (await o?.health())?.role));
      const leading = roles.flatMap((role, i) => (role === 'leader' ? [i] : []));
      return leading.length === 1 ? { i: leading[0]! } : null;
    };
    /** What each OAM says of itself and logged: printed when the test fails. */
    const tellStates = async () => {
      for (const [i, o] of oams.entries())
        console.log(`OAM ${i}: ${JSON.stringify(o ? await o.health() : 'killed')}\n${o?.logs()}`);
    };
    /** Every configured agent runs the latest revision, as an OAM shows it. */
    const allApplied = async () => {
      const view = (await call(anyOam().base, session, 'GET', '/api/ipfe')).body as IpfeView;
      return view.items
        .filter((s) => s.configured)
        .every((s) => s.appliedRevision === view.latestRevision && s.state === 'synced');
    };
    /** The alarm log, read on the primary. */
    const alarmLog = async () => {
      const primary = await pair.primary();
      if (primary === null) return null;
      const client = new pg.Client({
        host: '127.0.0.1',
        port: pair.ports[primary],
        user: 'postgres',
        database: 'ipfe',
      });
      client.on('error', () => {});
      await client.connect();
      try {
        const { rows } = await client.query<{ id: number; cleared_at: string | null }>(
          'select id, cleared_at from alarms order by id',
        );
        return rows;
      } finally {
        await client.end();
      }
    };
    const trapsOf = (kind: 'Raised' | 'Cleared', id: number) =>
      trapd.traps.filter(
        (trap) =>
          trap.varbinds['SNMPv2-MIB::snmpTrapOID.0'] === `OID: IPFE-OAM-MIB::ipfeAlarm${kind}` &&
          trap.varbinds['IPFE-OAM-MIB::ipfeAlarmId.0'] === `Gauge32: ${id}`,
      );
    /** Every alarm of the log with the traps snmptrapd counted of it, and those it should have. */
    const trapsPerAlarm = async () =>
      ((await alarmLog()) ?? []).map((a) => ({
        id: a.id,
        got: [trapsOf('Raised', a.id).length, trapsOf('Cleared', a.id).length],
        expected: [1, a.cleared_at === null ? 0 : 1],
      }));

    /**
     * The operator: saves the options again and again (a new connect timeout each time, so each
     * save is a revision) through a random OAM, reading the ETag afresh, until told to stop. A
     * 412 is an answer too: the ETag was read before a save the operator got no answer to.
     */
    const operate = (ledger: Ledger, stopped: () => boolean) =>
      (async () => {
        for (let i = 0; !stopped(); i++) {
          let status: number | 'no answer' = 'no answer';
          /** One request, timed: none may take 10 s or more. */
          const timed = async (...args: Parameters<typeof call>) => {
            const started = performance.now();
            try {
              return await call(...args);
            } finally {
              const ms = performance.now() - started;
              if (ms >= 10_000) ledger.unexpected.push(`${args[2]} took ${Math.round(ms)} ms`);
            }
          };
          try {
            const base = anyOam().base;
            const current = await timed(base, session, 'GET', '/api/options');
            const answer = await timed(base, session, 'PUT', '/api/options', {
              body: { ...IPFES, connectTimeoutS: 2 + (i % 7) },
              ifMatch: current.headers.get('etag') ?? '',
            });
            status = answer.status;
            if (status === 200 && !answer.headers.has('x-ipfe-unchanged')) {
              ledger.committed.push(Number(answer.headers.get('x-ipfe-revision')));
              ledger.lastCommitAt = Date.now();
            } else if (![200, 412, 503].includes(status)) {
              ledger.unexpected.push(`${status} ${JSON.stringify(answer.body)}`);
            }
          } catch {
            // That OAM is dead (killed by the test), or was killed mid-request.
          }
          ledger.statuses.set(status, (ledger.statuses.get(status) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
    /** Every revision number of the history, oldest first (read a page of 1000 at a time). */
    const history = async () => {
      const numbers: number[] = [];
      for (let before = ''; ;) {
        const page = await call(
          anyOam().base,
          session,
          'GET',
          `/api/revisions?limit=1000${before}`,
        );
        const items = (page.body as { items: { number: number }[] }).items;
        if (items.length === 0) return numbers.sort((a, b) => a - b);
        numbers.push(...items.map((r) => r.number));
        before = `&before=${Math.min(...items.map((r) => r.number))}`;
      }
    };

    beforeAll(async () => {
      pair = await startAutoFailoverPair();
      reporters = await Promise.all(
        SERVERS.map((host) =>
          createReporter({
            listen: { host, port: 9675 },
            mpsCapacity: 100,
            connectionCapacity: 100,
          }),
        ),
      );
      trapd = await startSnmptrapd(`udp:${TRAPD.host}:${TRAPD.port}`, [
        'authCommunity log ipfe-traps',
      ]);
      for (const i of OAM_HOSTS.keys()) startOam(i);
      await waitFor('one OAM leads', leader, 60_000).catch(async (err: unknown) => {
        await tellStates();
        throw err;
      });
      await waitFor('every OAM answers', async () =>
        (await Promise.all(oams.map((o) => o!.health()))).every(Boolean),
      );
      session = await postSession(oams[0]!.base);
      expect(session.status).toBe(200);
      const base = oams[1]!.base; // a session made on one OAM opens the others
      const ok = (answer: { status: number; body: unknown }) =>
        expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      ok(await edit(base, session, '/api/options', IPFES));
      ok(
        await call(base, session, 'POST', '/api/xsi-networks', {
          body: { name: 'lab', cidr: '127.45.0.0/16' },
        }),
      );
      for (const [i, address] of SERVERS.entries())
        ok(
          await call(base, session, 'POST', '/api/app-servers', {
            body: { name: `mp${i + 1}`, addresses: [address] },
          }),
        );
      ok(
        await call(base, session, 'POST', '/api/target-sets', {
          body: {
            family: 'ipv4',
            algorithm: 'hash',
            primary: { address: TSA },
            servers: SERVERS.map((address) => ({ address })),
          },
        }),
      );
      ok(
        await edit(base, session, '/api/options/snmp-traps', {
          destinations: [{ ...TRAPD, version: 'v2c', community: 'ipfe-traps' }],
        }),
      );
      startAgent('A1');
      startAgent('A2');
      await waitFor('both agents run the latest revision', allApplied, 30_000);
    }, 300_000);

    afterAll(async () => {
      for (const o of oams) o?.child.kill('SIGKILL');
      for (const child of Object.values(agents)) child?.kill('SIGKILL');
      await Promise.all((reporters ?? []).map((r) => r.close()));
      await trapd?.stop();
      await pair?.stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('keeps every answered commit, gap-free; agents end on the latest; every trap once', async () => {
      const ledger: Ledger = {
        committed: [],
        statuses: new Map(),
        unexpected: [],
        lastCommitAt: 0,
      };
      let stop = false;
      const operator = operate(ledger, () => stop);
      const commitsSince = async (what: string, since: number, timeoutMs = 60_000) =>
        waitFor(what, async () => ledger.lastCommitAt > since + 500, timeoutMs);

      try {
        // A2 dies: the leader raises 5151 and sends its trap.
        agents.A2!.kill('SIGKILL');
        await waitFor(
          'the trap of A2 unreachable',
          async () => {
            const log = (await alarmLog()) ?? [];
            return log.some((a) => a.cleared_at === null && trapsOf('Raised', a.id).length > 0);
          },
          30_000,
        );

        // The leader OAM is killed outright: another takes over; the operator goes on.
        const first = (await leader())!.i;
        const killedAt = Date.now();
        oams[first]!.child.kill('SIGKILL');
        oams[first] = null;
        const next = await waitFor('another OAM leads', leader, 10_000);
        console.log(
          `chaos: leader OAM ${first} killed; OAM ${next.i} leads after ${Date.now() - killedAt} ms`,
        );
        await commitsSince('a commit after the leader died', killedAt);
        startOam(first);

        // A2 back: the new leader clears 5151.
        startAgent('A2');

        // The PostgreSQL primary is killed outright: pg_auto_failover promotes the standby.
        const primary = (await pair.primary())!;
        const primaryKilledAt = Date.now();
        pair.kill(primary);
        await commitsSince('a commit on the promoted standby', primaryKilledAt, 120_000);
        console.log(
          `chaos: PostgreSQL node ${primary} killed; first commit after ${ledger.lastCommitAt - primaryKilledAt} ms`,
        );
        pair.restart(primary);
        expect(await pair.settled()).toBe(1 - primary);
        await waitFor('one OAM leads after the store failover', leader, 30_000);

        // The leader again, now on the new primary.
        const second = (await leader())!.i;
        const secondKilledAt = Date.now();
        oams[second]!.child.kill('SIGKILL');
        oams[second] = null;
        await waitFor('another OAM leads again', leader, 10_000);
        await commitsSince('a commit after the second leader died', secondKilledAt);
        startOam(second);
        await waitFor(
          'all three OAMs answer',
          async () => (await Promise.all(oams.map((o) => o?.health()))).every(Boolean),
          30_000,
        );
      } catch (err) {
        await tellStates();
        throw err;
      } finally {
        stop = true;
        await operator;
      }

      expect(ledger.unexpected).toEqual([]);
      expect(ledger.committed.length).toBeGreaterThan(20);
      console.log(`chaos: answers ${JSON.stringify([...ledger.statuses])}`);

      // Every commit answered 2xx is in the history; the numbers have no gap and no duplicate.
      const numbers = await history();
      expect(ledger.committed.filter((n) => !numbers.includes(n))).toEqual([]);
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i));

      // Every agent runs the latest revision; every alarm had its traps, none twice.
      await waitFor('both agents run the latest revision', allApplied, 30_000);
      await waitFor(
        'every trap sent',
        async () =>
          (await trapsPerAlarm()).every(
            (a) => a.got[0]! >= a.expected[0]! && a.got[1]! >= a.expected[1]!,
          ),
        30_000,
      );
      await new Promise((r) => setTimeout(r, 1500));
      const perAlarm = await trapsPerAlarm();
      expect(perAlarm.length).toBeGreaterThan(0);
      expect(perAlarm.map((a) => [a.id, ...a.got])).toEqual(
        perAlarm.map((a) => [a.id, ...a.expected]),
      );
    }, 420_000);
  },
);
