import type { TsaRoles } from '@ipfe/engine';
import { describe, expect, it } from 'vitest';
import {
  initiatorTsaOf,
  plannedTsas,
  servable,
  servesInitiators,
  targetSetsOf,
  watchedServers,
} from './node-roles.ts';
import { testDocument } from './testing.ts';

/** Target Set 1 (active A1, standby A2) on 192.0.2.100; 2 (active A2, standby A1) on .101. */
const document = testDocument(1, (c) => {
  c.options.ipfe.B1 = { address: '192.0.2.21', agentPort: 8701 };
  c.options.ipfe.B2 = { address: '192.0.2.22', agentPort: 8701 };
  c.targetSets.push({
    ...c.targetSets[1]!,
    number: 3,
    primary: { address: '192.0.2.102', activeIpfe: 'B1' },
    servers: [{ address: '10.0.0.2', secondaryAddress: null, weight: 100, description: '' }],
  });
});

const roles = (address: string, targetSet: number, activeActive = false): TsaRoles => ({
  address,
  targetSet,
  active: 'A1',
  standby: 'A2',
  disabled: false,
  activeActive: activeActive ? ['A1', 'A2'] : null,
});

describe('what an IPFE may serve', () => {
  it.each([
    { slot: 'A1' as const, sets: [1, 2], servers: ['10.0.0.1', '10.0.0.2', '10.0.0.3'] },
    { slot: 'A2' as const, sets: [1, 2], servers: ['10.0.0.1', '10.0.0.2', '10.0.0.3'] },
    { slot: 'B1' as const, sets: [3], servers: ['10.0.0.2'] },
  ])('$slot: Target Sets $sets, monitoring $servers', ({ slot, sets, servers }) => {
    expect(targetSetsOf(document, slot).map((ts) => ts.number)).toEqual(sets);
    expect(watchedServers(document, slot)).toEqual(servers);
  });

  it('leaves out a disabled Target Set, and takes those of an active-active group', () => {
    const doc = testDocument(1, (c) => {
      c.targetSets[0]!.disabled = true;
      c.options.bgp = {
        asn: 65001,
        peers: [{ address: '192.0.2.1', asn: 65000 }],
        bfdIntervalMs: 50,
        bfdMultiplier: 3,
      };
      c.targetSets[1]!.serving = 'activeActive';
      c.targetSets[1]!.activeActiveIpfes = ['A1', 'A2'];
    });
    expect(targetSetsOf(doc, 'A1').map((ts) => ts.number)).toEqual([2]);
  });

  it('relays its servers’ own connections only with a Target Set of Initiator support', () => {
    expect(servesInitiators(document, 'A1')).toBe(false);
    const doc = testDocument(1, (c) => {
      c.targetSets[1]!.initiatorSupport = true;
    });
    expect(servesInitiators(doc, 'A1')).toBe(true);
    expect(servesInitiators(doc, 'B1')).toBe(false);
    expect(
      initiatorTsaOf(doc, [roles('192.0.2.100', 1), roles('192.0.2.101', 2)], '10.0.0.3'),
    ).toBe('192.0.2.101');
    expect(initiatorTsaOf(doc, [roles('192.0.2.100', 1)], '10.0.0.3')).toBeNull();
    expect(initiatorTsaOf(doc, [roles('192.0.2.101', 2)], '10.0.0.1')).toBeNull();
  });

  it('plans the TSAs served now, or every TSA where the path keeps standby rules programmed', () => {
    expect([...plannedTsas(document, ['192.0.2.100'], false)]).toEqual(['192.0.2.100']);
    expect([...plannedTsas(document, ['192.0.2.100'], true)]).toEqual([
      '192.0.2.100',
      '192.0.2.101',
      '192.0.2.102',
    ]);
    expect([...plannedTsas(null, [], true)]).toEqual([]);
  });

  it('serves an active-active TSA only where it can announce it', () => {
    const given = [roles('192.0.2.100', 1), roles('192.0.2.101', 2, true)];
    expect(servable(given, true).map((r) => r.address)).toEqual(['192.0.2.100', '192.0.2.101']);
    expect(servable(given, false).map((r) => r.address)).toEqual(['192.0.2.100']);
  });
});
