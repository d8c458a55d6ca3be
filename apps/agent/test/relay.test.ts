import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { loopbackLab, type RunningAgent } from './loopback-lab.ts';
import { until } from './poll.ts';

const lab = loopbackLab(import.meta.url);
const peerAddress = lab.address('3.1');
let agent: RunningAgent;
const seen: { address: string; port: number }[] = [];

beforeAll(async () => {
  await lab.startAppServers();
  // A Diameter peer the application server initiates towards: it answers with what it sees.
  const peer = net.createServer((socket) => {
    seen.push({ address: socket.remoteAddress!, port: socket.remotePort! });
    socket.on('error', () => socket.destroy());
    socket.on('data', (d) =>
      socket.write(`seen ${socket.remoteAddress}:${socket.remotePort} ${d}`),
    );
  });
  await new Promise<void>((r) => peer.listen(3868, peerAddress, r));
  lab.onCleanup(() => peer.close());
  agent = await lab.startAgent({ holdOffMs: 0 });
  await lab.configure(agent, (c) => (c.targetSets[0]!.initiatorSupport = true));
  await until('TSA served', async () => (await agent.status()).owned.length === 1);
});

/** What an application server does: ask the agent's relay for a connection from the TSA. */
function initiate(from: string, target: string): Promise<{ socket: net.Socket; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: lab.a1, port: 9676, localAddress: from });
    socket.setEncoding('utf8');
    let text = '';
    const onData = (d: string) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      socket.off('data', onData);
      resolve({ socket, answer: text.slice(0, nl) });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(`CONNECT ${target}\n`);
  });
}

describe('initiator relay', () => {
  it("connects from the TSA with a source port in the server's Initiator Port Range, and the reply reaches the server", async () => {
    const { socket, answer } = await initiate(lab.servers[1]!, `${peerAddress}:3868`);
    expect(answer).toMatch(/^OK \d+$/);
    const port = Number(answer.slice(3));
    expect(port).toBeGreaterThanOrEqual(16896);
    expect(port).toBeLessThanOrEqual(17407); // mp2's slice
    expect(seen.at(-1)).toEqual({ address: lab.tsa, port });
    const reply = await new Promise<string>((resolve) => {
      socket.once('data', (d) => resolve(String(d)));
      socket.write('CER');
    });
    expect(reply).toBe(`seen ${lab.tsa}:${port} CER`);
    socket.destroy();
  });

  it('gives concurrent initiators distinct ports and refuses an address that is no server', async () => {
    const many = await Promise.all(
      [1, 2, 3, 4].map(() => initiate(lab.servers[0]!, `${peerAddress}:3868`)),
    );
    const ports = many.map((m) => Number(m.answer.slice(3)));
    expect(new Set(ports).size).toBe(4);
    for (const p of ports) expect(p >= 16384 && p <= 16895).toBe(true);
    many.forEach((m) => m.socket.destroy());
    const stranger = await initiate(lab.address('9.9'), `${peerAddress}:3868`);
    expect(stranger.answer).toMatch(/^ERR .*may not initiate/);
    const garbled = await initiate(lab.servers[0]!, 'nonsense');
    expect(garbled.answer).toBe('ERR expected CONNECT host:port');
  });
});
