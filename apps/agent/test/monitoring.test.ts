import { spawn } from 'node:child_process';
import net from 'node:net';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Configuration } from '@ipfe/schema';
import { ask, hold, sleep, type AppServer } from './loopback-peers.ts';
import { loopbackLab, type RunningAgent } from './loopback-lab.ts';
import { throughout, until } from './poll.ts';

const lab = loopbackLab(import.meta.url);
let agent: RunningAgent;
let servers: AppServer[];

const push = (change?: (c: Configuration) => void) => lab.configure(agent, change);

async function allNormal() {
  await until('every server normal', async () =>
    (await agent.status()).targetSets[0]?.servers.every((s) => s.state === 'normal'),
  );
}

/** The agent's log lines (JSON), as an operator reads them. */
const logLines: { level: number; msg: string; server?: string }[] = [];

beforeAll(async () => {
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        logLines.push(JSON.parse(line) as (typeof logLines)[number]);
      done();
    },
  });
  agent = await lab.startAgent({ holdOffMs: 0, logStream });
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function startServers() {
  servers = await lab.startAppServers('hold');
  await push();
  await allNormal();
  await until('the TSA served', async () => (await agent.status()).listening.length > 0);
}

async function holdMany(count: number) {
  const held = [];
  for (let i = 0; i < count; i++) held.push(await hold(lab.tsa, lab.client(1 + (i % 50))));
  return held;
}

describe('application server monitoring', () => {
  it('takes a server whose reporter stops offline within connectTimeoutS and closes its connections', async () => {
    await startServers();
    const held = await holdMany(30);
    const victim = lab.servers[0]!;
    const onVictim = held.filter((h) => h.server === victim);
    expect(onVictim.length).toBeGreaterThan(0);
    await servers[0]!.reporter.close();
    const stoppedAt = Date.now();
    await until(
      'server offline',
      async () =>
        (await agent.status()).targetSets[0]!.servers.find((s) => s.address === victim)?.state ===
        'offline',
    );
    expect(Date.now() - stoppedAt).toBeLessThan(2000 + 1000);
    for (const h of onVictim) expect(await h.alive()).toBe(false);
    for (const h of held.filter((x) => x.server !== victim)) expect(await h.alive()).toBe(true);
    for (let i = 0; i < 30; i++)
      expect((await hold(lab.tsa, lab.client(60 + i))).server).not.toBe(victim);
    await until('alarm 5001', async () =>
      (await agent.status()).alarms.some((x) => x.code === 5001 && x.server === victim),
    );
    held.forEach((h) => h.socket.destroy());
  });

  it('keeps a hung server (it accepts the monitoring connection, sends nothing) offline with one 5001 until it heartbeats again', async () => {
    await startServers();
    const victim = lab.servers[0]!;
    const victimOf = async () => {
      const status = await agent.status();
      return {
        state: status.targetSets[0]!.servers.find((s) => s.address === victim)?.state,
        alarms: status.alarms.filter((x) => x.code === 5001 && x.server === victim),
      };
    };
    await servers[0]!.reporter.close(); // its place is taken by a reporter process
    await until('in-process reporter gone', async () => (await victimOf()).state === 'offline');
    const reporter = spawn(
      process.execPath,
      [
        new URL('../../../packages/reporter/bin/ipfe-reporter.js', import.meta.url).pathname,
        ...['--listen', `${victim}:9675`, '--mps-capacity', '1000'],
        ...['--connection-capacity', '1000', '--interval-ms', '200'],
      ],
      { stdio: 'ignore' },
    );
    try {
      await until('the reporter process heard', async () => {
        const seen = await victimOf();
        return seen.state === 'normal' && seen.alarms.length === 0;
      });
      reporter.kill('SIGSTOP');
      await until('server offline with 5001', async () => {
        const seen = await victimOf();
        return seen.state === 'offline' && seen.alarms.length === 1;
      });
      const first = await victimOf();
      const warnedBefore = logLines.length;
      // connectTimeoutS 2 + connectTryIntervalS 1: more than three reconnects of the silent server
      await throughout(10_000, 250, async () => {
        const seen = await victimOf();
        expect(seen.state).toBe('offline');
        expect(seen.alarms.map((x) => x.raisedAt)).toEqual([first.alarms[0]!.raisedAt]);
      });
      const warnings = logLines
        .slice(warnedBefore)
        .filter((l) => l.level >= 40 && l.server === victim)
        .map((l) => l.msg);
      expect(warnings).toEqual([]); // one "monitoring connection lost" at the start, not each retry
      const cleared = (await agent.status()).alarmHistory.filter(
        (x) => x.code === 5001 && x.server === victim && x.raisedAt >= first.alarms[0]!.raisedAt,
      );
      expect(cleared).toEqual([]);
      reporter.kill('SIGCONT');
      await until('server normal again, 5001 cleared', async () => {
        const seen = await victimOf();
        return seen.state === 'normal' && seen.alarms.length === 0;
      });
    } finally {
      reporter.kill('SIGKILL');
      if (reporter.exitCode === null && reporter.signalCode === null) await once(reporter, 'exit');
    }
  });

  it('sends nothing new to a server that reports halting, and keeps its open connections', async () => {
    await startServers();
    const held = await holdMany(30);
    const halting = lab.servers[1]!;
    servers[1]!.reporter.update({ state: 'halting' });
    await until(
      'halting',
      async () =>
        (await agent.status()).targetSets[0]!.servers.find((s) => s.address === halting)?.state ===
        'halting',
    );
    const onHalting = held.filter((h) => h.server === halting);
    expect(onHalting.length).toBeGreaterThan(0);
    for (const h of onHalting) expect(await h.alive()).toBe(true);
    for (let i = 0; i < 30; i++)
      expect((await hold(lab.tsa, lab.client(100 + i))).server).not.toBe(halting);
    held.forEach((h) => h.socket.destroy());
  });

  it('drains a server whose weight becomes 0: no new connections, open ones stay', async () => {
    await startServers();
    const held = await holdMany(30);
    const drained = lab.servers[2]!;
    const onDrained = held.filter((h) => h.server === drained);
    expect(onDrained.length).toBeGreaterThan(0);
    await push((c) => {
      c.targetSets[0]!.servers[2]!.weight = 0;
    });
    for (const h of onDrained) expect(await h.alive()).toBe(true);
    for (let i = 0; i < 30; i++)
      expect((await hold(lab.tsa, lab.client(150 + i))).server).not.toBe(drained);
    held.forEach((h) => h.socket.destroy());
  });

  it('ignores and counts 10,000 malformed heartbeat lines and keeps forwarding', async () => {
    servers = await lab.startAppServers('name', lab.servers.slice(1));
    // Server 1 is a hostile monitoring peer: garbage, oversize lines and wrong types, then a valid beat.
    const garbage = net.createServer((socket) => {
      socket.on('error', () => socket.destroy());
      const lines: string[] = [];
      for (let i = 0; i < 10_000; i++) {
        lines.push(i % 3 === 0 ? 'not json' : i % 3 === 1 ? '{"mps":"lots"}' : 'x'.repeat(2000));
      }
      socket.write(lines.join('\n') + '\n');
      socket.write('{"mps":1,"mpsCapacity":10,"connections":0,"connectionCapacity":10}\n');
    });
    await new Promise<void>((r) => garbage.listen(9675, lab.servers[0], r));
    const service = net.createServer((s) => s.end(lab.servers[0]!));
    await new Promise<void>((r) => service.listen(3868, lab.servers[0], r));
    try {
      await push((c) => (c.targetSets[0]!.deleteAgeSeconds = 601));
      const malformed = await until('10,000 malformed lines counted', async () => {
        const n = (await agent.status()).counters.malformedHeartbeats;
        return n >= 10_000 ? n : 0;
      });
      expect(malformed).toBe(10_000);
      const names = new Set<string>();
      for (let i = 0; i < 60; i++)
        names.add(await ask(lab.tsa, { address: lab.client(200 + (i % 50)) }));
      expect(names.size).toBe(3);
    } finally {
      garbage.close();
      service.close();
    }
  });
});

describe('Least Load over real heartbeats', () => {
  it('gives fewer new connections to a server reporting higher load', async () => {
    servers = await lab.startAppServers('name');
    await push((c) => {
      c.targetSets[0]!.algorithm = 'leastLoad';
      c.targetSets[0]!.leastLoad.allowedDeviation = 5;
    });
    servers[0]!.reporter.update({ mps: 800, connections: 600 });
    servers[1]!.reporter.update({ mps: 100, connections: 100 });
    servers[2]!.reporter.update({ mps: 100, connections: 100 });
    await until('loads reported', async () => {
      const s = (await agent.status()).targetSets[0]!.servers;
      return s.every((x) => x.state === 'normal') && (s[0]!.load ?? 0) > (s[1]!.load ?? 0) + 20;
    });
    const tally = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const name = await ask(lab.tsa, { address: lab.client(1 + (i % 50)) });
      tally.set(name, (tally.get(name) ?? 0) + 1);
      if (i % 50 === 0) await sleep(5);
    }
    const loaded = tally.get(lab.servers[0]!) ?? 0;
    expect(loaded).toBeLessThan(
      Math.min(tally.get(lab.servers[1]!) ?? 0, tally.get(lab.servers[2]!) ?? 0),
    );
  });
});
