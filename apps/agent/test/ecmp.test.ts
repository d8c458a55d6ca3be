import { afterAll, beforeAll, expect, it } from 'vitest';
import { EcmpLab, ecmpLabMissing, IPFES, SERVERS, type IpfeName } from './ecmp-lab.ts';
import { until } from './poll.ts';
import { expectSpreadByWeights } from './spread.ts';
import { describeLab } from './lab.ts';

/** Active-active over BGP + ECMP (issue 18), on the lab of ecmp-lab.ts. */
const lab = new EcmpLab(`ipe${process.pid % 10000}`, '10.231.30', '10.231.31');
const { hosts, tsa: TSA, topology } = lab;

const total = (tally: Record<string, number>) => Object.values(tally).reduce((a, b) => a + b, 0);

function alarmsOf(slot: IpfeName) {
  const status = lab.agentGet(slot, '/v1/status');
  return status
    ? (
        JSON.parse(status) as {
          alarms: { code: number; server: string | null; severity: string }[];
        }
      ).alarms
    : [];
}

describeLab('active-active over BGP and ECMP (issue 18)', ecmpLabMissing, () => {
  beforeAll(async () => {
    lab.build();
    // A1 alone at first: A2, of its group, is not started yet.
    lab.startAgent('a1');
    await lab.push(lab.config(['a1', 'a2']));
  }, 60_000);

  afterAll(() => lab.remove());

  it('an IPFE announces the TSA, the client reaches a server through the router; withdrawn when its servers go offline', async () => {
    await lab.untilRoutedThrough(['a1']);
    // The TSA is never an address of the IPFE (each of the group would claim it).
    expect(topology.exec('a1', ['ip', 'addr', 'show', 'eth0']).stdout).not.toContain(`${TSA}/`);
    const tally = await lab.client.ask(`tally ${TSA} 10`);
    expect(tally.none ?? 0).toBe(0);
    expect((tally.s1 ?? 0) + (tally.s2 ?? 0)).toBe(10);

    for (const s of SERVERS) topology.kill(lab.reporters[s]!, 'SIGSTOP');
    await lab.untilRoutedThrough([]);
    for (const s of SERVERS) topology.kill(lab.reporters[s]!, 'SIGCONT');
    await lab.untilRoutedThrough(['a1']);
  }, 120_000);

  it('an IPFE joining the group loses no held connection, and takes some of them over', async () => {
    lab.startAgent('b1');
    await lab.push(lab.config(['a1', 'a2', 'b1']));
    await lab.untilRoutedThrough(['a1', 'b1']);
    const held = await lab.client.ask(`hold ${TSA} 30`);
    expect(total(held)).toBe(30);

    lab.startAgent('a2');
    await lab.untilRoutedThrough(['a1', 'a2', 'b1']);
    const before = lab.carried('a2');
    const alive = await lab.client.ask('alive');
    expect(alive).toEqual(held);
    // The router moved some held flows to A2, which sent them on to the same servers.
    expect(lab.carried('a2')).toBeGreaterThan(Math.max(0, before));
  }, 120_000);

  it('three IPFEs: the router spreads new flows over all three, and they spread them over the servers by weight', async () => {
    const { tally, perIpfe } = await lab.newConnections(300);
    expect(tally.none ?? 0).toBe(0);
    expectSpreadByWeights(tally, { s1: 1, s2: 1 });
    expect(total(perIpfe)).toBe(300);
    for (const slot of IPFES) expect(perIpfe[slot], slot).toBeGreaterThan(0);

    // Each agent shows its session, BFD and what it announces, in its status and /metrics.
    await lab.untilBgpUp('a1');
    const metrics = lab.agentGet('b1', '/metrics');
    expect(metrics).toMatch(new RegExp(`ipfe_bgp_session_up\\{peer="${hosts.router}"[^}]*\\} 1`));
    expect(metrics).toMatch(new RegExp(`ipfe_bgp_announced\\{prefix="${TSA}/32"[^}]*\\} 1`));
  }, 120_000);

  it('an IPFE that loses every server withdraws and gets no new flows; the others carry them all', async () => {
    // B1 alone stops hearing the servers' heartbeats: for B1 they are offline, for A1 and A2 not.
    lab.cutHeartbeats('b1', true);
    await lab.untilRoutedThrough(['a1', 'a2']);
    const before = lab.newFlows();
    const tally = await lab.client.ask(`tally ${TSA} 60`);
    expect(tally.none ?? 0).toBe(0);
    expect(total(tally)).toBe(60);
    const after = lab.newFlows();
    expect(after.b1 - before.b1).toBe(0);
    expect(after.a1 - before.a1 + (after.a2 - before.a2)).toBe(60);

    lab.cutHeartbeats('b1', false);
    await lab.untilRoutedThrough(['a1', 'a2', 'b1']);
  }, 120_000);

  it('an IPFE killed outright: its route is withdrawn and every held Hash connection survives', async () => {
    const held = await lab.client.ask('alive');
    expect(total(held)).toBe(30);
    // Held over every IPFE (the router hashes source ports): A2 carries some of them.
    const carriedBefore = lab.carried('a2');
    await lab.client.ask('alive');
    expect(lab.carried('a2')).toBeGreaterThan(carriedBefore);

    topology.kill(lab.agents.a2!, 'SIGKILL');
    await lab.untilRoutedThrough(['a1', 'b1']);
    const alive = await lab.client.ask('alive');
    expect(alive).toEqual(held);
  }, 120_000);

  it('an IPFE lost with its link: BFD takes its route away and the held connections survive', async () => {
    const held = await lab.client.ask('alive');
    expect(total(held)).toBe(30);
    // The agent and its FRR go on running: only the router's BFD can tell it is gone.
    topology.exec('b1', ['ip', 'link', 'set', 'eth0', 'down']);
    await lab.untilRoutedThrough(['a1']);
    const bfd = topology.exec('router', [
      'vtysh',
      '-N',
      lab.routerSpace,
      '-c',
      'show bfd peers json',
    ]);
    const peers = JSON.parse(bfd.stdout) as { peer: string; status: string }[];
    expect(peers.find((p) => p.peer === hosts.b1)?.status).toBe('down');
    const alive = await lab.client.ask('alive');
    expect(alive).toEqual(held);
    // B1 lost its router too: alarm 5152 names it.
    await until(
      'B1 raises alarm 5152 for the router',
      () =>
        alarmsOf('b1').some(
          (a) => a.code === 5152 && a.server === hosts.router && a.severity === 'major',
        ),
      30_000,
    );
  }, 120_000);
});
