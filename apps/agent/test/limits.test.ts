import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hold } from './loopback-peers.ts';
import { controlOf, documentOf, loopbackLab, TOKEN, type RunningAgent } from './loopback-lab.ts';
import { until } from './poll.ts';

/** Limits and faults. The suite runs short versions; `npm run chaos` the full counts. */
const CHAOS = process.env.IPFE_CHAOS === '1';
const ATTEMPTS = CHAOS ? 20_000 : 2_000;
const TABLE_BOUND = 50;
const lab = loopbackLab(import.meta.url);
let agent: RunningAgent;

beforeAll(async () => {
  await lab.startAppServers('hold');
  agent = await lab.startAgent({
    holdOffMs: 0,
    maxConnections: TABLE_BOUND,
    requestTimeoutMs: 1000,
  });
  await lab.configure(agent, (c) => (c.options.ipfe.A2 = null));
  await until('TSA served', async () => (await agent.status()).listening.length === 1);
  await until('servers normal', async () =>
    (await agent.status()).targetSets[0]!.servers.every((s) => s.state === 'normal'),
  );
});

/** One attempt: 'refused' when the agent resets or closes it before any server speaks. */
function attempt(from: string): Promise<'refused' | 'answered'> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: lab.tsa, port: 3868, localAddress: from });
    socket.once('data', () => {
      socket.destroy();
      resolve('answered');
    });
    socket.once('error', () => resolve('refused'));
    socket.once('close', () => resolve('refused'));
  });
}

describe('the connection table bound', () => {
  it(`refuses and counts ${ATTEMPTS} attempts beyond the bound, with bounded memory, and keeps forwarding`, async () => {
    const held = [];
    for (let i = 0; i < TABLE_BOUND; i++) held.push(await hold(lab.tsa, lab.client(1 + (i % 200))));
    const rssBefore = process.memoryUsage().rss;
    const outcomes = { refused: 0, answered: 0 };
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async (_, w) => {
        while (next < ATTEMPTS) {
          next++;
          outcomes[await attempt(lab.client(1 + (w % 200)))]++;
        }
      }),
    );
    expect(outcomes.refused).toBe(ATTEMPTS);
    const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    expect(rssGrowthMb).toBeLessThan(100);
    const metrics = await agent.metrics();
    const refused =
      /^ipfe_connections_refused_total\{[^}]*reason="table-full"[^}]*target_set="1"[^}]*\} (\d+)/m.exec(
        metrics,
      ) ??
      /^ipfe_connections_refused_total\{[^}]*target_set="1"[^}]*reason="table-full"[^}]*\} (\d+)/m.exec(
        metrics,
      );
    expect(Number(refused?.[1])).toBe(ATTEMPTS);
    for (const h of held) expect(await h.alive()).toBe(true);
    held.slice(0, 5).forEach((h) => h.socket.destroy());
    await until('room in the table again', () =>
      hold(lab.tsa, lab.client(250))
        .then((h) => (h.socket.destroy(), true))
        .catch(() => false),
    );
    held.forEach((h) => h.socket.destroy());
  }, 300_000);
});

describe('the control API under abuse', () => {
  it('cuts off a client that sends its request too slowly', async () => {
    const socket = net.connect({ host: lab.a1, port: 8701 });
    socket.on('error', () => {});
    await new Promise((r) => socket.once('connect', r));
    socket.write('PUT /v1/config HTTP/1.1\r\nHost: x\r\n');
    const closedAfter = await new Promise<number>((resolve) => {
      const started = Date.now();
      const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 200);
      socket.once('close', () => {
        clearInterval(drip);
        resolve(Date.now() - started);
      });
    });
    expect(closedAfter).toBeLessThan(5000);
    const after = await hold(lab.tsa, lab.client(252));
    expect(await after.alive()).toBe(true); // the data path never noticed
    after.socket.destroy();
  });

  it('keeps forwarding through oversize and garbage control requests', async () => {
    const garbage = [
      'GET / HTTP/1.1\r\n\r\n',
      '\x00\x01\x02 not http at all\r\n\r\n',
      `PUT /v1/config HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n{`,
      `PUT /v1/config HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n[[[[[`,
    ];
    for (const text of garbage) {
      const socket = net.connect({ host: lab.a1, port: 8701 });
      socket.on('error', () => {});
      socket.end(text);
    }
    const held = await hold(lab.tsa, lab.client(251));
    expect(await held.alive()).toBe(true);
    held.socket.destroy();
    expect((await agent.status()).revision).toBe(1);
  });
});

describe('a crash while saving a configuration', () => {
  it('restarts with the old or the new configuration, never a mix', async () => {
    const dir = lab.stateDir();
    const host = lab.address('0.21');
    const control = controlOf(host);
    const spawnAgent = (env: Record<string, string>) =>
      lab.spawnAgent({ slot: 'B1', host, dir, env });
    const put = (revision: number) =>
      control.push(
        documentOf(
          revision,
          lab.config((c) => (c.targetSets[0]!.deleteAgeSeconds = 600 + revision)),
        ),
      );
    let child = spawnAgent({});
    await until('agent up', () => control.health());
    expect((await put(1)).status).toBe(200);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    child = spawnAgent({ IPFE_AGENT_FAULT: 'crash-before-rename' });
    await until('faulty agent up', () => control.health());
    await put(2).catch(() => null); // the agent dies between writing and renaming
    await new Promise((r) =>
      child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r),
    );

    const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(saved.revision).toBe(1);
    spawnAgent({});
    const health = await until('agent up again', () => control.health());
    expect(health.revision).toBe(1); // the old configuration, whole
    expect((await put(2)).status).toBe(200);
  });
});
