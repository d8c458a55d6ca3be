import type { ConfigDocument } from '@ipfe/schema';
import { describe, expect, it } from 'vitest';
import { AnnounceHoldDown } from './announce-hold-down.ts';
import { Engine } from './engine.ts';
import { configDocument } from './testing.ts';

const report = { mps: 0, mpsCapacity: 1000, connections: 0, connectionCapacity: 1000 };
const TSA = '192.0.2.1';
const [S1, S2] = ['10.1.0.1', '10.1.0.2'];

function activeActive(): ConfigDocument {
  const doc = configDocument({
    options: { monitorProtocol: 'heartbeat' },
    targetSets: [{ tsa: TSA, algorithm: 'hash', activeIpfe: 'A1', servers: [S1, S2] }],
  });
  const [first] = doc.config.targetSets;
  const aa = { ...first!, serving: 'activeActive' as const, activeActiveIpfes: ['A1', 'A2'] };
  return { ...doc, config: { ...doc.config, targetSets: [aa] as typeof doc.config.targetSets } };
}

describe('announcing an active-active TSA', () => {
  it('waits until what the IPFE knows of its servers has held still for the hold-down', () => {
    const engine = new Engine(activeActive(), 0);
    const hold = new AnnounceHoldDown();
    const announced = (now: number) =>
      hold.announce(engine.plan([TSA], now).tsas, now, 3000).length;
    expect(announced(0)).toBe(0); // every server initializing: nothing takes new connections
    engine.heartbeat(S1, report, 1000);
    expect(announced(1000)).toBe(0); // S1 is back, S2 not yet: not announced at once
    engine.heartbeat(S2, report, 2500);
    expect(announced(2500)).toBe(0); // S2 back: the view changed, the hold-down starts again
    expect(announced(5400)).toBe(0);
    expect(announced(5500)).toBe(1);
  });

  it('goes on announcing through changes once announced, and withdraws at once when no server takes new connections', () => {
    const engine = new Engine(activeActive(), 0);
    const hold = new AnnounceHoldDown();
    const announced = (now: number) =>
      hold.announce(engine.plan([TSA], now).tsas, now, 3000).length;
    for (const s of [S1, S2]) engine.heartbeat(s, report, 0);
    announced(0);
    expect(announced(3000)).toBe(1);
    engine.serverLost(S2, 4000);
    expect(announced(4000)).toBe(1); // S1 still takes new connections
    engine.serverLost(S1, 5000);
    expect(announced(5000)).toBe(0);
    engine.serverConnected(S1, 6000);
    engine.heartbeat(S1, report, 6000);
    expect(announced(6000)).toBe(0); // back, but held down again
    expect(announced(9000)).toBe(1);
  });
});
