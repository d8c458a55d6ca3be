import { spawn } from 'node:child_process';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { heartbeatSchema } from './heartbeat.ts';
import { createReporter, type Reporter } from './reporter.ts';

const HOST = '127.0.0.1';
const reporters: Reporter[] = [];
afterEach(async () => {
  await Promise.all(reporters.splice(0).map((r) => r.close()));
});

async function start(options: Partial<Parameters<typeof createReporter>[0]> = {}) {
  const reporter = await createReporter({
    listen: { host: HOST, port: 0 },
    mpsCapacity: 1000,
    connectionCapacity: 500,
    intervalMs: 50,
    ...options,
  });
  reporters.push(reporter);
  return reporter;
}

/** Connects as an agent would and yields each heartbeat line, parsed. */
function watch(port: number) {
  const socket = net.connect({ host: HOST, port });
  const lines = createInterface({ input: socket });
  const queue: unknown[] = [];
  const waiting: ((v: unknown) => void)[] = [];
  lines.on('line', (line) => {
    const value = JSON.parse(line);
    const next = waiting.shift();
    if (next) next(value);
    else queue.push(value);
  });
  return {
    next: () =>
      new Promise<unknown>((resolve) =>
        queue.length ? resolve(queue.shift()) : waiting.push(resolve),
      ),
    close: () => socket.destroy(),
  };
}

describe('createReporter', () => {
  it('writes a valid heartbeat at once and then every interval', async () => {
    const reporter = await start();
    const agent = watch(reporter.monitorAddress().port);
    const first = await agent.next();
    expect(heartbeatSchema.parse(first)).toEqual({
      mps: 0,
      mpsCapacity: 1000,
      connections: 0,
      connectionCapacity: 500,
      state: 'normal',
    });
    const started = Date.now();
    await agent.next();
    await agent.next();
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    agent.close();
  });

  it('reports what it is told, at once', async () => {
    const reporter = await start({ intervalMs: 60_000 });
    const agent = watch(reporter.monitorAddress().port);
    await agent.next();
    reporter.update({ state: 'stressed', mps: 900 });
    expect(await agent.next()).toMatchObject({ state: 'stressed', mps: 900 });
    agent.close();
  });

  it('counts its open echo connections as connections, and echoes', async () => {
    const reporter = await start({ echoPort: 0 });
    const echoPort = reporter.echoAddress()!.port;
    const clients = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<net.Socket>((resolve) => {
            const c = net.connect({ host: HOST, port: echoPort }, () => resolve(c));
          }),
      ),
    );
    const reply = await new Promise<string>((resolve) => {
      clients[0]!.once('data', (d) => resolve(d.toString()));
      clients[0]!.write('hello');
    });
    expect(reply).toBe('hello');
    expect(reporter.heartbeat().connections).toBe(3);
    clients.forEach((c) => c.destroy());
    await new Promise((r) => setTimeout(r, 50));
    expect(reporter.heartbeat().connections).toBe(0);
    expect(reporter.stats().echoAccepted).toBe(3);
  });

  it('falls silent on request without closing the monitoring connection', async () => {
    const reporter = await start({ intervalMs: 20 });
    const agent = watch(reporter.monitorAddress().port);
    await agent.next();
    reporter.update({ silent: true });
    const outcome = await Promise.race([
      agent.next().then(() => 'heartbeat'),
      new Promise((r) => setTimeout(() => r('silence'), 150)),
    ]);
    expect(outcome).toBe('silence');
    expect(reporter.stats().monitors).toBe(1);
    agent.close();
  });
});

describe('ipfe-reporter command', () => {
  const bin = new URL('../bin/ipfe-reporter.js', import.meta.url).pathname;

  it('refuses bad flags with one line each and exit code 2', async () => {
    const child = spawn(process.execPath, [bin, '--listen', 'nowhere', '--mps-capacity=-5'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr.split('\n').filter((l) => l.startsWith('ipfe-reporter:'))).toEqual([
      'ipfe-reporter: --listen must be HOST:PORT, not nowhere',
      'ipfe-reporter: --mps-capacity must be a positive number',
      'ipfe-reporter: --connection-capacity is required',
    ]);
  });

  /** Runs the command to its end; its lines on stderr. */
  async function refusal(args: string[], options: { uid?: number } = {}) {
    const child = spawn(process.execPath, [bin, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      ...options,
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    return { code, lines: stderr.split('\n').filter((l) => l.startsWith('ipfe-reporter:')) };
  }
  const required = [
    '--listen',
    `${HOST}:9675`,
    '--mps-capacity',
    '1',
    '--connection-capacity',
    '1',
  ];

  it('refuses --hold-tsa addresses that are not unicast IPv4 or IPv6, naming each', async () => {
    expect(
      await refusal([
        ...required,
        '--hold-tsa',
        '10.0.0.300,fd00::1,224.0.0.1,fe80::1',
        '--tsa-device',
        'eth0',
      ]),
    ).toEqual({
      code: 2,
      lines: [
        'ipfe-reporter: --hold-tsa takes unicast IPv4 or IPv6 addresses separated by commas, not "10.0.0.300"',
        'ipfe-reporter: --hold-tsa takes unicast IPv4 or IPv6 addresses separated by commas, not "224.0.0.1"',
        'ipfe-reporter: --hold-tsa takes unicast IPv4 or IPv6 addresses separated by commas, not "fe80::1"',
      ],
    });
    expect(await refusal([...required, '--tsa-device', 'eth0'])).toEqual({
      code: 2,
      lines: ['ipfe-reporter: --tsa-device goes with --hold-tsa'],
    });
  });

  it('says --hold-tsa needs root when it is run without', async () => {
    // As root, the same command run as nobody.
    const nobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    expect(
      await refusal([...required, '--hold-tsa', '192.0.2.10', '--tsa-device', 'eth0'], nobody),
    ).toEqual({
      code: 1,
      lines: [
        'ipfe-reporter: --hold-tsa needs root (it adds addresses, sysctls and an nftables table)',
      ],
    });
  });

  it('serves heartbeats and takes changes as JSON lines on stdin', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(
      process.execPath,
      [
        bin,
        '--listen',
        `${HOST}:${port}`,
        '--mps-capacity',
        '2000',
        '--connection-capacity',
        '100',
        '--interval-ms',
        '50',
      ],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      const agent = watch(port);
      expect(await agent.next()).toMatchObject({
        mpsCapacity: 2000,
        connectionCapacity: 100,
        state: 'normal',
      });
      child.stdin.write('not json\n{"state":"halting"}\n');
      let beat: { state?: string };
      do beat = (await agent.next()) as { state?: string };
      while (beat.state !== 'halting');
      expect(beat.state).toBe('halting');
      agent.close();
    } finally {
      child.kill('SIGTERM');
    }
  });
});
