import { afterAll, beforeAll, expect, it } from 'vitest';
import { EcmpLab, ecmpLabMissing, IPFES } from './ecmp-lab.ts';
import { expectSpreadByWeights } from './spread.ts';
import { describeLab } from './lab.ts';

/** Active-active over BGP + ECMP (issue 18) for an IPv6 Target Set: the TSA announced as a /128. */
const lab = new EcmpLab(`ip6e${process.pid % 1000}`, 'fd00:231:50', 'fd00:231:51', 6);
const { tsa: TSA, topology } = lab;

const total = (tally: Record<string, number>) => Object.values(tally).reduce((a, b) => a + b, 0);

describeLab('active-active over BGP and ECMP for IPv6 (issue 18)', ecmpLabMissing, () => {
  beforeAll(async () => {
    lab.build();
    for (const slot of IPFES) lab.startAgent(slot);
    await lab.push(lab.config(IPFES));
  }, 60_000);

  afterAll(() => lab.remove());

  it('three IPv6-only IPFEs announce the TSA /128: the router has three next hops and new flows reach the servers through all three', async () => {
    await lab.untilRoutedThrough(IPFES, 45_000);
    expect(topology.exec('a1', ['ip', '-6', 'addr', 'show', 'eth0']).stdout).not.toContain(
      `${TSA}/`,
    );
    // Each agent reads its IPv6 session and BFD as up and names the /128 it announces.
    for (const slot of IPFES) await lab.untilBgpUp(slot);

    const { tally, perIpfe } = await lab.newConnections(300);
    expect(tally.none ?? 0).toBe(0);
    expectSpreadByWeights(tally, { s1: 1, s2: 1 });
    expect(total(perIpfe)).toBe(300);
    for (const slot of IPFES) expect(perIpfe[slot], slot).toBeGreaterThan(0);
  }, 120_000);

  it("an IPFE's agent killed outright: the router withdraws it and every held IPv6 connection survives", async () => {
    const held = await lab.client.ask(`hold ${TSA} 20`);
    expect(total(held)).toBe(20);
    // Held over every IPFE (the router hashes source ports): A2 carries some of them.
    const carriedBefore = lab.carried('a2');
    expect(await lab.client.ask('alive')).toEqual(held);
    expect(lab.carried('a2')).toBeGreaterThan(carriedBefore);

    topology.kill(lab.agents.a2!, 'SIGKILL');
    await lab.untilRoutedThrough(['a1', 'b1']);
    expect(await lab.client.ask('alive')).toEqual(held);
  }, 120_000);
});
