import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReporter, type Reporter } from '@ipfe/reporter';
import type { IpfeView, MeasurementsView } from '@ipfe/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnAgent } from './agent-process.ts';
import {
  configureMatesLab,
  login,
  startApp,
  waitFor,
  type Client,
  type TestApp,
} from './helpers.ts';

/**
 * GET /api/measurements with two real agent processes on loopback (127.47.0.0/16) running the
 * user-space path, and real TCP traffic through the Target Set.
 */
const TOKEN = 'measurements-token-0123456789abcdefghijklmn';
const A1 = '127.47.0.11';
const A2 = '127.47.0.12';
const TSA = '127.47.0.100';
const SERVERS = ['127.47.1.1', '127.47.1.2'];
const PORT = 3868;
const stateDirs = {
  A1: mkdtempSync(join(tmpdir(), 'ipfe-meas-a1-')),
  A2: mkdtempSync(join(tmpdir(), 'ipfe-meas-a2-')),
};
const agents: Partial<Record<'A1' | 'A2', ChildProcess>> = {};
let t: TestApp;
let admin: Client;
let reporters: Reporter[];
let services: net.Server[];

function startAgent(slot: 'A1' | 'A2') {
  agents[slot]?.kill('SIGKILL');
  agents[slot] = spawnAgent({
    slot,
    control: `${slot === 'A1' ? A1 : A2}:8701`,
    stateDir: stateDirs[slot],
    token: TOKEN,
  });
}

/** An application server's service: it takes whatever it is sent and answers "ok" at the end. */
function startService(address: string): Promise<net.Server> {
  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.on('data', () => {});
    socket.on('end', () => socket.end('ok'));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address, port: PORT }, () => resolve(server));
  });
}

/** Sends `bytes` bytes to the TSA in one connection and waits for the server's answer. */
function send(bytes: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: TSA, port: PORT }, () => socket.end(Buffer.alloc(bytes)));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (answer += d));
    socket.on('close', () => (answer === 'ok' ? resolve() : reject(new Error('no answer'))));
    socket.on('error', reject);
  });
}

const measurements = async () => {
  const response = await admin.get('/api/measurements');
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as MeasurementsView;
};
const ipfe = async () => (await admin.get('/api/ipfe')).json() as IpfeView;
const synced = async () => {
  const view = await ipfe();
  return view.items
    .filter((i) => i.configured)
    .every((i) => i.state === 'synced' && i.appliedRevision === view.latestRevision);
};
const served = async () =>
  (await ipfe()).items.some((i) => i.owned.some((o) => o.tsa === TSA && o.role === 'active'));

beforeAll(async () => {
  reporters = await Promise.all(
    SERVERS.map((host) =>
      createReporter({ listen: { host, port: 9675 }, mpsCapacity: 100, connectionCapacity: 100 }),
    ),
  );
  services = await Promise.all(SERVERS.map(startService));
  t = await startApp({
    agentToken: TOKEN,
    agentSync: {
      enabled: true,
      pollIntervalMs: 200,
      backoffMaxMs: 500,
      measurementWindow: { windowMs: 60_000, stepMs: 400 },
    },
  });
  await t.app.ready();
  admin = await login(t.app);
  await configureMatesLab(admin, {
    a1: A1,
    a2: A2,
    cidr: '127.47.0.0/16',
    servers: SERVERS,
    tsa: TSA,
    protocols: 'tcp',
  });
  startAgent('A1');
  startAgent('A2');
  await waitFor('both agents synced', synced);
  await waitFor('an IPFE serves the TSA', served);
}, 60_000);

afterAll(async () => {
  for (const child of Object.values(agents)) child?.kill('SIGKILL');
  await t?.close();
  if (t) rmSync(t.dir, { recursive: true, force: true });
  await Promise.all((reporters ?? []).map((r) => r.close()));
  await Promise.all((services ?? []).map((s) => new Promise((done) => s.close(done))));
  for (const dir of Object.values(stateDirs)) rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/measurements', () => {
  it('answers only a logged-in user', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/measurements' });
    expect(response.statusCode).toBe(401);
  });

  it('lists each Target Set of the running configuration with its TSA and servers', async () => {
    const view = await measurements();
    expect(view).toMatchObject({ windowSeconds: 60, stepSeconds: 0.4, accounting: true });
    expect(view.targetSets.map((ts) => [ts.number, ts.tsa])).toEqual([[1, TSA]]);
    expect(view.targetSets[0]!.servers.map((s) => s.address)).toEqual(SERVERS);
  });

  it('shows the bytes sent through the TSA as totals and as rates, summed over the IPFEs', async () => {
    await waitFor('both agents report measurements', async () =>
      (await measurements()).reporting.length === 2 ? true : undefined,
    );
    for (let i = 0; i < 5; i++) await send(10_000);
    const ts = await waitFor('the bytes counted', async () => {
      const [found] = (await measurements()).targetSets;
      return found?.totals.rxBytes === 50_000 && found.rates.some((r) => (r.rxBytes ?? 0) > 0)
        ? found
        : undefined;
    });
    // The user-space path counts its sockets' bytes: no SCTP, no packets.
    expect(ts.totals).toMatchObject({ rxSctpBytes: null, unexpectedTcp: null, rejected: 0 });
    expect(ts.servers.reduce((sum, s) => sum + (s.txBytes ?? 0), 0)).toBe(50_000);
    const busy = ts.servers.find((s) => (s.txBytes ?? 0) > 0)!;
    expect(busy.rates.some((r) => (r.txBytes ?? 0) > 0)).toBe(true);
  });

  it('never shows a negative rate when an agent restarts and its totals start again from 0', async () => {
    const before = (await measurements()).targetSets[0]!.totals.rxBytes!;
    expect(before).toBeGreaterThan(0);
    startAgent('A1');
    startAgent('A2');
    await waitFor('the restarted agents counted afresh', async () => {
      const view = await measurements();
      const rx = view.targetSets[0]!.totals.rxBytes;
      return view.reporting.length === 2 && rx !== null && rx < before ? true : undefined;
    });
    await waitFor('synced again', synced);
    await waitFor('an IPFE serves the TSA again', served);
    await send(4_000);
    const ts = await waitFor('the new bytes counted', async () => {
      const [found] = (await measurements()).targetSets;
      return found?.totals.rxBytes === 4_000 ? found : undefined;
    });
    // The schema says non-negative: a negative rate would have failed the answer (a 500).
    const rates = ts.rates.flatMap((r) => [r.rxBytes, r.rejected]);
    expect(rates.every((r) => r === null || r >= 0)).toBe(true);
  });
});
