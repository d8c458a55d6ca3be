import { beforeAll, describe, expect, it } from 'vitest';
import { createReporter } from '@ipfe/reporter';
import { loopbackLab, type RunningAgent } from '../loopback-lab.ts';
import { until } from '../poll.ts';
import {
  startDiameterClient,
  startDiameterServer,
  stopDiameterPeers,
  type DiameterServer,
} from './diameter.ts';

/**
 * Real Diameter peers (the `diameter` package) through a real agent's user-space data path, on
 * loopback: two servers behind one TSA.
 */
const lab = loopbackLab(import.meta.url);
const names = ['mp1', 'mp2'];
let agent: RunningAgent;
let servers: DiameterServer[];

beforeAll(async () => {
  const addresses = lab.servers.slice(0, 2);
  const reporters = await Promise.all(
    addresses.map((host) =>
      createReporter({
        listen: { host, port: 9675 },
        mpsCapacity: 1000,
        connectionCapacity: 1000,
        intervalMs: 200,
      }),
    ),
  );
  lab.onCleanup(() => Promise.all(reporters.map((r) => r.close())));
  servers = await Promise.all(
    addresses.map((host, i) => startDiameterServer({ host, name: names[i]! })),
  );
  lab.onCleanup(stopDiameterPeers);
  agent = await lab.startAgent();
  await lab.configure(agent, (c) => {
    c.targetSets[0]!.servers = c.targetSets[0]!.servers.slice(0, 2);
  });
  await until('the TSA served by both servers', async () => {
    const status = await agent.status();
    return (
      status.listening.includes(`${lab.tsa}:3868`) &&
      status.targetSets[0]!.servers.every((s) => s.state === 'normal')
    );
  });
});

const serverNamed = (name: string) => servers[names.indexOf(name)]!;

describe('a Diameter client through the TSA', () => {
  it('gets a CEA from one of the two servers, then a DWA for each DWR from that server', async () => {
    const { client, capabilities } = await startDiameterClient({
      host: lab.tsa,
      localAddress: lab.client(1),
    });
    expect(names).toContain(capabilities.originHost);
    const answering = serverNamed(capabilities.originHost);
    const other = servers.find((s) => s !== answering)!;
    expect(capabilities.hostIpAddress).toBe(lab.servers[names.indexOf(answering.name)]);
    expect(answering.peers()).toHaveLength(1);
    expect(other.peers()).toHaveLength(0);

    await client.dwa(5);
    const counts = await client.stats();
    expect(counts.cea).toBe(1);
    expect(counts.dwa).toBeGreaterThanOrEqual(5);
    expect(client.count(new RegExp(`^dwa \\d+ ${answering.name}$`))).toBe(client.dwas());
    expect((await answering.stats()).dwr).toBeGreaterThanOrEqual(5);
    expect(client.exit).toBeNull();

    await client.disconnect();
    expect(client.exit).toEqual({ code: 0, signal: null });
    expect((await answering.stats()).dpr).toBe(1);
  });

  it('reports the connection lost when its server stops answering', async () => {
    const { client, capabilities } = await startDiameterClient({
      host: lab.tsa,
      localAddress: lab.client(2),
      intervalMs: 200,
    });
    await client.dwa(2);
    const answering = serverNamed(capabilities.originHost);
    answering.signal('SIGSTOP');
    try {
      expect(await client.lost()).toMatch(/^no DWA \d+ within 600 ms$/);
      expect(client.exit?.code).toBe(1);
    } finally {
      answering.signal('SIGCONT');
    }
  });

  it('reports the connection lost when its server goes away', async () => {
    const { client, capabilities } = await startDiameterClient({
      host: lab.tsa,
      localAddress: lab.client(3),
      intervalMs: 200,
    });
    await client.dwa(2);
    await serverNamed(capabilities.originHost).stop();
    expect(await client.lost()).toBe('connection closed');
    expect(client.exit?.code).toBe(1);
  });
});
