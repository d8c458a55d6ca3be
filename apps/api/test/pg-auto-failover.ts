import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './postgres-server.ts';

const BIN = '/usr/lib/postgresql/15/bin';

/** Monitor settings that make a failover take seconds, not the half minute of the defaults. */
const FAST_HEALTH_CHECKS = {
  'pgautofailover.health_check_period': 1000,
  'pgautofailover.health_check_timeout': 1000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.node_considered_unhealthy_timeout': 2000,
  // How long the monitor waits for a primary it cannot reach to demote itself before it promotes
  // the standby (30 s by default). Safe to shorten with a synchronous standby: a primary cut off
  // rather than dead cannot commit without the standby's acknowledgement meanwhile.
  'pgautofailover.primary_demote_timeout': 2000,
};

interface NodeState {
  nodename: string;
  nodeport: number;
  current_group_state: string;
  assigned_group_state: string;
}

/**
 * A PostgreSQL primary and its synchronous standby under pg_auto_failover (its monitor and one
 * keeper per node, all as the `postgres` user, in a temporary folder, on 127.0.0.1; decision 023).
 * The failover is the manager's; the test only kills and restarts nodes.
 */
export interface AutoFailoverPair {
  /** The URL the OAMs are given: both hosts, target_session_attrs=read-write, database ipfe. */
  url: string;
  ports: [number, number];
  /** The node (0 or 1) that is primary now, as the monitor says; null while there is none. */
  primary(): Promise<0 | 1 | null>;
  /** Waits until one node is primary, synchronously replicated to its secondary; answers it. */
  settled(timeoutMs?: number): Promise<0 | 1>;
  /** SIGKILLs node `i` outright: its keeper and its PostgreSQL, as a machine that dies. */
  kill(i: 0 | 1): void;
  /** Starts node `i`'s keeper again: it rejoins as the standby. */
  restart(i: 0 | 1): void;
  stop(): Promise<void>;
}

export async function startAutoFailoverPair(): Promise<AutoFailoverPair> {
  const dir = mkdtempSync(join(tmpdir(), 'ipfe-paf-'));
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  chownSync(dir, uid, uid);
  const env = [
    `XDG_CONFIG_HOME=${dir}/config`,
    `XDG_DATA_HOME=${dir}/share`,
    `XDG_RUNTIME_DIR=${dir}/run`,
    `PATH=${BIN}:/usr/bin:/bin`,
  ];
  const asPostgres = (args: string[]) => [
    '-u',
    'postgres',
    '--',
    'env',
    ...env,
    'pg_autoctl',
    ...args,
  ];
  const monitorPort = await freePort();
  const ports: [number, number] = [await freePort(), await freePort()];
  const monitorData = join(dir, 'monitor');
  const nodeData = [join(dir, 'node0'), join(dir, 'node1')];
  const processes: (ChildProcess | null)[] = [null, null, null];
  const logs = ['', '', ''];

  /** A process group of its own (runuser, pg_autoctl, its services, PostgreSQL): killed as one. */
  const run = (slot: number, args: string[]) => {
    const child = spawn('runuser', asPostgres(args), {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => (logs[slot] = (logs[slot] + chunk.toString()).slice(-6000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    processes[slot] = child;
  };
  const killGroup = (slot: number) => {
    const child = processes[slot];
    if (!child?.pid) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone already
    }
    processes[slot] = null;
  };

  const query = async <T extends pg.QueryResultRow>(port: number, db: string, text: string) => {
    const client = new pg.Client({
      host: '127.0.0.1',
      port,
      user: 'postgres',
      database: db,
      connectionTimeoutMillis: 2000,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  };
  const until = async <T>(what: string, probe: () => Promise<T | null>, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe().catch(() => null);
      if (value !== null) return value;
      if (Date.now() > deadline)
        throw new Error(
          `pg_auto_failover: ${what} not in ${timeoutMs} ms\n${logs.join('\n---\n')}`,
        );
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const states = () =>
    query<NodeState>(
      monitorPort,
      'pg_auto_failover',
      'select nodename, nodeport, reportedstate as current_group_state, goalstate as assigned_group_state from pgautofailover.node order by nodeid',
    );

  const stop = async () => {
    for (const slot of [1, 2, 0]) killGroup(slot);
    // PostgreSQL children left by a keeper killed meanwhile.
    spawnSync('pkill', ['-KILL', '-f', dir]);
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const create = spawnSync(
      'runuser',
      asPostgres([
        'create',
        'monitor',
        '--pgdata',
        monitorData,
        '--pgport',
        String(monitorPort),
        '--hostname',
        '127.0.0.1',
        '--listen',
        '127.0.0.1',
        '--auth',
        'trust',
        '--no-ssl',
      ]),
      { encoding: 'utf8' },
    );
    if (create.status !== 0) throw new Error(`pg_autoctl create monitor: ${create.stderr}`);
    run(0, ['run', '--pgdata', monitorData]);
    await until('the monitor', () => query(monitorPort, 'pg_auto_failover', 'select 1'), 30_000);
    for (const [name, value] of Object.entries(FAST_HEALTH_CHECKS))
      await query(monitorPort, 'pg_auto_failover', `alter system set ${name} = ${value}`);
    await query(monitorPort, 'pg_auto_failover', 'select pg_reload_conf()');
    const monitorUrl = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover`;
    const nodeArgs = (i: 0 | 1) => [
      'create',
      'postgres',
      '--pgdata',
      nodeData[i]!,
      '--pgport',
      String(ports[i]),
      '--hostname',
      '127.0.0.1',
      '--listen',
      '127.0.0.1',
      '--monitor',
      monitorUrl,
      '--auth',
      'trust',
      '--no-ssl',
      '--dbname',
      'ipfe',
      '--name',
      `node${i}`,
      '--run',
    ];
    run(1, nodeArgs(0));
    await until(
      'the first node',
      async () => ((await states())[0]?.current_group_state === 'single' ? true : null),
      60_000,
    );
    run(2, nodeArgs(1));
    // pg_autoctl's base backup waits for a spread checkpoint (minutes): a CHECKPOINT hurries it.
    await until(
      'the standby',
      async () => {
        await query(ports[0], 'ipfe', 'checkpoint').catch(() => {});
        const [a, b] = await states();
        return a?.current_group_state === 'primary' && b?.current_group_state === 'secondary'
          ? true
          : null;
      },
      90_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  const primary = async (): Promise<0 | 1 | null> => {
    // wait_primary: a primary whose standby is gone, committing without it.
    const found = (await states().catch(() => [])).findIndex(
      (n) =>
        ['primary', 'wait_primary'].includes(n.current_group_state) &&
        n.assigned_group_state === n.current_group_state,
    );
    return found === 0 || found === 1 ? found : null;
  };

  return {
    url: `postgres://postgres@127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}/ipfe?target_session_attrs=read-write`,
    ports,
    primary,
    settled: (timeoutMs = 90_000) =>
      until(
        'a primary and its secondary',
        async () => {
          // 'primary', not wait_primary: until then the primary commits without its standby.
          const nodes = await states();
          const p = nodes.findIndex(
            (n) => n.current_group_state === 'primary' && n.assigned_group_state === 'primary',
          );
          return (p === 0 || p === 1) && nodes[1 - p]?.current_group_state === 'secondary'
            ? p
            : null;
        },
        timeoutMs,
      ),
    kill: (i) => killGroup(i + 1),
    restart: (i) => run(i + 1, ['run', '--pgdata', nodeData[i]!]),
    stop,
  };
}
