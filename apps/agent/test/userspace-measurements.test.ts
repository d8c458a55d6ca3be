import { beforeAll, describe, expect, it } from 'vitest';
import type { AgentMeasurements, Configuration } from '@ipfe/schema';
import { ask, hold } from './loopback-peers.ts';
import { loopbackLab, type RunningAgent } from './loopback-lab.ts';
import { until } from './poll.ts';

/**
 * The source product's measurements on the user-space data path (issue 27 item 4), with real
 * connections on loopback: it counts the bytes its sockets carry and the refusals, and says "not
 * counted" (null, no series) for what it cannot see: packets, SCTP. Target Set 1 has the lab's
 * first two servers; Target Set 2 only the third, which has no application server, so that every
 * connection to it is refused (TxReject).
 */
const lab = loopbackLab(import.meta.url);
let agent: RunningAgent;
const [s1, s2, absent] = lab.servers as [string, string, string];

function withRefusingSet(accounting: boolean) {
  return (c: Configuration) => {
    c.options.accounting = accounting;
    // Two IP lists are identical or disjoint: s1 and s2 for Target Set 1, the absent one for 2.
    const first = c.targetSets[0]!;
    const servers = first.servers;
    first.servers = servers.filter((s) => s.address !== absent);
    c.targetSets.push({
      ...first,
      number: 2,
      primary: { address: lab.tsa2, activeIpfe: 'A1' },
      servers: servers.filter((s) => s.address === absent),
    });
  };
}

const measurements = async (): Promise<AgentMeasurements> => (await agent.status()).measurements!;
const targetSet = async (number: number) =>
  (await measurements()).targetSets.find((t) => t.number === number)!;

/** The value of one series of the agent's /metrics, by its name and labels (NaN: absent). */
async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = (await agent.metrics())
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return Number(line?.split(' ').at(-1) ?? NaN);
}

/** `count` connections to the TSA, each sending `bytes` and reading their echo; by server. */
async function send(count: number, bytes: number): Promise<Record<string, number>> {
  const by: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const held = await hold(lab.tsa, lab.client(1 + i));
    const echoed = new Promise<void>((resolve) => {
      let got = 0;
      held.socket.on('data', (d: string) => {
        got += d.length;
        if (got >= bytes) resolve();
      });
    });
    held.socket.write('x'.repeat(bytes));
    await echoed;
    held.socket.destroy();
    by[held.server] = (by[held.server] ?? 0) + 1;
  }
  return by;
}

beforeAll(async () => {
  await lab.startAppServers('hold', [s1, s2]);
  agent = await lab.startAgent({ holdOffMs: 0 });
  await lab.configure(agent, withRefusingSet(true));
  await until('both Target Sets served, s1 and s2 normal', async () => {
    const status = await agent.status();
    const states = status.targetSets[0]?.servers.map((s) => s.state);
    return status.listening.length === 2 && states?.join() === 'normal,normal';
  });
});

describe('the user-space data path’s measurements', () => {
  it('counts the bytes its clients send per Target Set and per server, alike in the status and /metrics', async () => {
    const before = await targetSet(1);
    const by = await send(20, 1000);
    const after = await until('the 20,000 bytes counted', async () => {
      const ts = await targetSet(1);
      return ts.rxBytes! - before.rxBytes! === 20_000 && ts;
    });
    for (const server of [s1, s2]) {
      const sent = (ts: typeof after) => ts.servers.find((s) => s.address === server)!.txBytes!;
      expect(sent(after) - sent(before), `bytes sent to ${server}`).toBe((by[server] ?? 0) * 1000);
    }
    expect(await metric('ipfe_tsa_rx_bytes_total', { target_set: '1', tsa: lab.tsa })).toBe(
      after.rxBytes,
    );
    expect(await metric('ipfe_server_tx_bytes_total', { target_set: '1', server: s1 })).toBe(
      after.servers.find((s) => s.address === s1)!.txBytes,
    );
  });

  it('says what it cannot count: SCTP bytes and unexpected packets are null, with no series', async () => {
    const ts = await targetSet(1);
    expect([ts.rxSctpBytes, ts.unexpectedTcp, ts.unexpectedSctp]).toEqual([null, null, null]);
    const text = await agent.metrics();
    expect(text).toContain('# HELP ipfe_tsa_rx_bytes_total RxTsaBytes:');
    expect(text).not.toMatch(/^ipfe_tsa_rx_sctp_bytes_total\{/m);
    expect(text).not.toMatch(/^ipfe_tsa_unexpected_packets_total\{/m);
  });

  it('stops counting bytes while Accounting is off, and says so; refusals (TxReject) are still counted', async () => {
    await lab.configure(agent, withRefusingSet(false));
    await until(
      'the status says accounting is off',
      async () => !(await measurements()).accounting,
    );
    expect(await metric('ipfe_accounting')).toBe(0);
    const before = await targetSet(1);
    const refusedBefore = (await targetSet(2)).rejected!;

    await send(5, 1000);
    for (let i = 0; i < 3; i++) await ask(lab.tsa2, { address: lab.client(100) }).catch(() => '');
    await until(
      'the 3 refusals counted',
      async () => (await targetSet(2)).rejected === refusedBefore + 3,
    );
    expect(await targetSet(1)).toEqual(before);

    await lab.configure(agent, withRefusingSet(true));
    await send(1, 1000);
    await until(
      'bytes counted again',
      async () => (await targetSet(1)).rxBytes === before.rxBytes! + 1000,
    );
  });
});
