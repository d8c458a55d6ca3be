import type { ConfigDocument, IpfeSlot } from '@ipfe/schema';
import { describe, expect, it } from 'vitest';
import { Engine } from './engine.ts';
import { announcable } from './forwarding-plan.ts';
import { Ownership } from './ownership.ts';
import { configDocument } from './testing.ts';

const report = { mps: 0, mpsCapacity: 1000, connections: 0, connectionCapacity: 1000 };

/** A document whose Target Set 1 is served active-active by `group` (issue 18's fields). */
function activeActive(group: IpfeSlot[]): ConfigDocument {
  const doc = configDocument({
    options: { monitorProtocol: 'heartbeat' },
    targetSets: [
      { tsa: '192.0.2.1', algorithm: 'hash', activeIpfe: 'A1', servers: ['10.1.0.1', '10.1.0.2'] },
      { tsa: '192.0.2.2', activeIpfe: 'A1', servers: ['10.1.0.1'] },
    ],
  });
  const [first, ...rest] = doc.config.targetSets;
  const aa = { ...first!, serving: 'activeActive' as const, activeActiveIpfes: group };
  return {
    ...doc,
    config: { ...doc.config, targetSets: [aa, ...rest] as typeof doc.config.targetSets },
  };
}

describe('active-active ownership (issue 18)', () => {
  it('every alive IPFE of the group serves the TSA at once, with no hold-off; others do not', () => {
    const o = new Ownership(activeActive(['A1', 'A2', 'B1']), { holdOffMs: 2000 });
    o.restarted('A2', 100);
    const served = (slot: IpfeSlot) => o.servedBy(slot, 100).map((r) => r.address);
    expect(served('A1')).toEqual(['192.0.2.1', '192.0.2.2']);
    expect(served('A2')).toEqual(['192.0.2.1']);
    expect(served('B1')).toEqual(['192.0.2.1']);
    expect(served('B2')).toEqual([]);
  });

  it('a dead member stops serving, the others go on; the active/standby TSA fails over as before', () => {
    const o = new Ownership(activeActive(['A1', 'A2']));
    o.dead('A1', 5000);
    expect(o.servedBy('A1', 5000).map((r) => r.address)).toEqual([]);
    expect(o.servedBy('A2', 5000).map((r) => r.address)).toEqual(['192.0.2.1', '192.0.2.2']);
  });
});

describe('the plan says how a TSA is reached', () => {
  it('an active-active TSA is announced by BGP, never held with ARP; an active/standby one by ARP', () => {
    const engine = new Engine(activeActive(['A1', 'A2']), 0);
    for (const s of ['10.1.0.1', '10.1.0.2']) engine.heartbeat(s, report, 0);
    const plan = engine.plan(['192.0.2.1', '192.0.2.2'], 0);
    expect(plan.tsas.map((t) => [t.tsa, t.announce])).toEqual([
      ['192.0.2.1', 'bgp'],
      ['192.0.2.2', 'arp'],
    ]);
    expect(plan.tsas.map(announcable)).toEqual([true, false]);
  });

  it('a BGP TSA is not announcable once no server takes new connections', () => {
    const engine = new Engine(activeActive(['A1', 'A2']), 0);
    const [before] = engine.plan(['192.0.2.1'], 0).tsas;
    // Before the first heartbeat every server is initializing.
    expect(announcable(before!)).toBe(false);
    engine.heartbeat('10.1.0.1', report, 10);
    expect(announcable(engine.plan(['192.0.2.1'], 10).tsas[0]!)).toBe(true);
  });

  it('an IPFE of the group that is neither the Active IPFE nor its mate plans the TSA too; one outside the group does not', () => {
    const b1 = new Engine(activeActive(['A1', 'B1']), 0, { slot: 'B1' });
    for (const s of ['10.1.0.1', '10.1.0.2']) b1.heartbeat(s, report, 0);
    expect(b1.plan(['192.0.2.1'], 0).tsas.map((t) => [t.tsa, announcable(t)])).toEqual([
      ['192.0.2.1', true],
    ]);
    const b2 = new Engine(activeActive(['A1', 'B1']), 0, { slot: 'B2' });
    expect(b2.plan(['192.0.2.1'], 0).tsas).toEqual([]);
  });
});
