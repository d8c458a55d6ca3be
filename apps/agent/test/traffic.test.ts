import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Configuration } from '@ipfe/schema';
import { createReporter } from '@ipfe/reporter';
import { hold, sleep } from './loopback-peers.ts';
import { loopbackLab, type RunningAgent } from './loopback-lab.ts';
import { until } from './poll.ts';

const lab = loopbackLab(import.meta.url);
let agent: RunningAgent;

const push = (change: (c: Configuration) => void) => lab.configure(agent, change);

beforeAll(async () => {
  await lab.startAppServers('hold');
  agent = await lab.startAgent({ holdOffMs: 0 });
});

const twoServers = (c: Configuration) => {
  c.targetSets[0]!.servers = c.targetSets[0]!.servers.slice(0, 2);
};

describe('a configuration pushed mid-traffic', () => {
  it('drops none of 100 open connections when a server is added and weights change', async () => {
    await push(twoServers);
    await until('two servers normal', async () => {
      const s = await agent.status();
      return s.listening.length > 0 && s.targetSets[0]!.servers.every((x) => x.state === 'normal');
    });
    const held = [];
    for (let i = 0; i < 100; i++) held.push(await hold(lab.tsa, lab.client(1 + (i % 50))));
    await push((c) => {
      c.targetSets[0]!.servers[0]!.weight = 300;
      c.targetSets[0]!.servers[2]!.weight = 50;
    });
    const alive = await Promise.all(held.map((h) => h.alive()));
    expect(alive.filter(Boolean)).toHaveLength(100);
    held.forEach((h) => h.socket.destroy());
  });

  it('closes only the connections of a server the new configuration removes', async () => {
    await until('three servers normal', async () =>
      (await agent.status()).targetSets[0]!.servers.every((x) => x.state === 'normal'),
    );
    const held = [];
    for (let i = 0; i < 60; i++) held.push(await hold(lab.tsa, lab.client(60 + (i % 50))));
    await push(twoServers);
    for (const h of held) expect(await h.alive()).toBe(h.server !== lab.servers[2]);
    held.forEach((h) => h.socket.destroy());
  });
});

describe('Delete Age', () => {
  it('closes an idle connection at Delete Age and keeps an active one', async () => {
    await push((c) => {
      twoServers(c);
      c.targetSets[0]!.deleteAgeSeconds = 10;
    });
    const idle = await hold(lab.tsa, lab.client(200));
    const active = await hold(lab.tsa, lab.client(201));
    const openedAt = Date.now();
    const idleClosed = new Promise<number>((resolve) =>
      idle.socket.once('close', () => resolve(Date.now() - openedAt)),
    );
    const keepAlive = setInterval(() => active.socket.write('.'), 2000);
    try {
      const closedAfter = await idleClosed;
      expect(closedAfter).toBeGreaterThanOrEqual(10_000);
      expect(closedAfter).toBeLessThan(11_500);
      expect(await active.alive()).toBe(true);
    } finally {
      clearInterval(keepAlive);
      active.socket.destroy();
    }
  }, 30_000);
});

/**
 * Target Set `number` on a TSA of its own (127.<block>.0.<99 + number>) with one application server
 * at `address`: `service` (on 3868 there) and a reporter; Target Set 1 keeps two servers. Runs
 * `test` with that TSA once it is served and its server normal, then closes server and reporter.
 */
async function withSoleServer(
  number: 2 | 3,
  name: string,
  address: string,
  service: net.Server,
  test: (tsa: string) => Promise<void>,
) {
  const tsa = lab.address(`0.${99 + number}`);
  await new Promise<void>((r) => service.listen(3868, address, r));
  const reporter = await createReporter({
    listen: { host: address, port: 9675 },
    mpsCapacity: 10,
    connectionCapacity: 10,
  });
  try {
    await push((c) => {
      twoServers(c);
      const start = 17920 + 512 * (number - 2);
      c.appServers.push({
        name,
        addresses: [address],
        initiatorPortRange: { start, end: start + 511 },
      });
      c.targetSets.push({
        ...c.targetSets[0]!,
        number,
        primary: { address: tsa, activeIpfe: 'A1' },
        servers: [{ address, secondaryAddress: null, description: '', weight: 100 }],
      });
    });
    await until(`the ${name} server normal, its TSA served`, async () => {
      const status = await agent.status();
      return (
        status.targetSets.find((t) => t.number === number)?.servers[0]?.state === 'normal' &&
        status.listening.includes(`${tsa}:3868`)
      );
    });
    await test(tsa);
  } finally {
    service.close();
    await reporter.close();
  }
}

describe('back-pressure', () => {
  it('buffers a bounded amount for a client that stops reading', async () => {
    let written = 0;
    // An application server that writes as fast as it may, towards a client that never reads.
    const flood = net.createServer((socket) => {
      socket.on('error', () => socket.destroy());
      const chunk = Buffer.alloc(64 * 1024, 1);
      const pump = () => {
        while (written < 512 * 1024 * 1024) {
          written += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    await withSoleServer(2, 'flood', lab.address('1.4'), flood, async (tsa) => {
      const client = net.connect({ host: tsa, port: 3868, localAddress: lab.client(240) });
      client.pause();
      await new Promise((r) => client.once('connect', r));
      await until('the server writing', () => written > 0);
      await sleep(1500);
      // Kernel socket buffers on both sides of the agent plus one high-water mark per stream.
      expect(written).toBeLessThan(16 * 1024 * 1024);
      const settled = written;
      await sleep(500);
      expect(written).toBe(settled); // stalled: nothing more is accepted while the client does not read
      client.destroy();
    });
  });

  it('buffers a bounded amount for a server that accepts and never reads', async () => {
    // An application server that accepts connections and never reads from them.
    const deaf = net.createServer((socket) => {
      socket.on('error', () => socket.destroy());
      socket.pause();
    });
    await withSoleServer(3, 'deaf', lab.address('1.5'), deaf, async (tsa) => {
      const client = net.connect({ host: tsa, port: 3868, localAddress: lab.client(241) });
      await new Promise((r) => client.once('connect', r));
      let accepted = 0;
      const chunk = Buffer.alloc(64 * 1024, 2);
      await new Promise<void>((resolve) => {
        const pump = () => {
          while (accepted < 512 * 1024 * 1024) {
            accepted += chunk.length;
            if (!client.write(chunk)) return void client.once('drain', pump);
          }
          resolve();
        };
        pump();
        setTimeout(resolve, 2000); // stalled: the writer waits for a drain that does not come
      });
      // Kernel socket buffers on both sides of the agent plus one high-water mark per stream.
      expect(accepted).toBeLessThan(16 * 1024 * 1024);
      client.destroy();
    });
  });
});
