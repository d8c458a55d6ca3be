import { beforeAll, describe, expect, it } from 'vitest';
import { ask } from './loopback-peers.ts';
import { loopbackLab, type RunningAgent } from './loopback-lab.ts';
import { until } from './poll.ts';
import { expectSpreadByWeights } from './spread.ts';

const lab = loopbackLab(import.meta.url);
let agent: RunningAgent;

beforeAll(async () => {
  await lab.startAppServers();
  agent = await lab.startAgent();
  await lab.configure(agent, (c) => {
    c.targetSets[0]!.servers = lab.servers.map((address, i) => ({
      address,
      secondaryAddress: null,
      description: '',
      weight: [1, 2, 1][i]!,
    }));
  });
  await until('all servers normal', async () => {
    const status = await agent.status();
    return (
      status.listening.includes(`${lab.tsa}:3868`) &&
      status.targetSets[0]?.servers.every((s) => s.state === 'normal')
    );
  });
});

async function spread(count: number, concurrency = 16) {
  const tally = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (next < count) {
        next++;
        const name = await ask(lab.tsa, { address: lab.client(1 + (w % 8)) });
        tally.set(name, (tally.get(name) ?? 0) + 1);
      }
    }),
  );
  return tally;
}

describe('forwarding with Hash', () => {
  it('spreads 2,000 connections over three servers by weights 1/2/1', async () => {
    const tally = await spread(2000);
    expect([...tally.values()].reduce((x, y) => x + y, 0)).toBe(2000);
    const [s1, s2, s3] = lab.servers as [string, string, string];
    expectSpreadByWeights(tally, { [s1]: 1, [s2]: 2, [s3]: 1 });
  });

  it('sends the same source address and port to the same server', async () => {
    for (const port of [41001, 41002, 41003]) {
      const first = await ask(lab.tsa, { address: lab.client(9), port });
      const again = await ask(lab.tsa, { address: lab.client(9), port });
      expect(again).toBe(first);
    }
  });

  it('counts connections per Target Set and server in the metrics', async () => {
    const text = await agent.metrics();
    const opened = [
      ...text.matchAll(/^ipfe_connections_opened_total\{[^}]*target_set="1"[^}]*\} (\d+)/gm),
    ].map((m) => Number(m[1]));
    expect(opened.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(2000);
    expect(text).toMatch(/ipfe_bytes_total\{[^}]*direction="out"[^}]*\} [1-9]/);
  });
});

describe('alarms that name an endpoint', () => {
  it('writes an IPv6 TSA and its port as [address]:port in the 5002 it raises', async () => {
    const v6 = 'fd00:31::100'; // on no interface of this host: the listener cannot bind
    await lab.configure(agent, (c) => {
      c.xsiNetworks.push({ name: 'xsi6', cidr: 'fd00:31::/64' });
      c.appServers.push({
        name: 'mp6',
        addresses: ['fd00:31::1'],
        initiatorPortRange: { start: 17920, end: 18431 },
      });
      c.targetSets.push({
        ...c.targetSets[0]!,
        number: 2,
        family: 'ipv6',
        primary: { address: v6, activeIpfe: 'A1' },
        servers: [{ ...c.targetSets[0]!.servers[0]!, address: 'fd00:31::1' }],
      });
    });
    await until('alarm 5002 for the IPv6 listener', async () =>
      (await agent.status()).alarms.some((x) => x.code === 5002 && x.targetSet === 2),
    );
    const alarm = (await agent.status()).alarms.find((x) => x.code === 5002 && x.targetSet === 2)!;
    expect(alarm.server).toBe(`[${v6}]:3868`);
    expect(alarm.text).toMatch(new RegExp(`^Cannot listen on \\[${v6}\\]:3868 \\(`));
  });
});
