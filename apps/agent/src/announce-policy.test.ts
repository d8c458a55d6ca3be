import type { TsaRoles } from '@ipfe/engine';
import { describe, expect, it } from 'vitest';
import {
  activeActiveTsas,
  announcement,
  holdDownMsOf,
  inActiveActiveGroup,
} from './announce-policy.ts';
import { plan, tsa } from './plan-fixtures.ts';
import { testDocument } from './testing.ts';

const bgp = {
  asn: 65001,
  peers: [{ address: '192.0.2.1', asn: 65000 }],
  bfdIntervalMs: 50,
  bfdMultiplier: 3,
};
const options = testDocument(1, (c) => {
  c.options.bgp = bgp;
}).config.options;
const roles = (address: string, activeActive: boolean): TsaRoles => ({
  address,
  targetSet: 1,
  active: 'A1',
  standby: 'A2',
  disabled: false,
  activeActive: activeActive ? ['A1', 'A2'] : null,
});

describe('what the agent asks FRR to announce', () => {
  it('takes the planned TSAs served active-active, not the active/standby ones', () => {
    const p = plan([tsa('192.0.2.100'), tsa('192.0.2.101'), tsa('192.0.2.102')]);
    const served = [roles('192.0.2.100', true), roles('192.0.2.101', false)];
    expect(activeActiveTsas(p, served).map((t) => t.tsa)).toEqual(['192.0.2.100']);
  });

  it('keeps BGP for a node in an enabled active-active group, whether it serves or not', () => {
    const aa = roles('192.0.2.100', true);
    expect(inActiveActiveGroup([roles('192.0.2.101', false), aa], 'A2')).toBe(true);
    expect(inActiveActiveGroup([aa], 'B1')).toBe(false);
    expect(inActiveActiveGroup([{ ...aa, disabled: true }], 'A1')).toBe(false);
    expect(inActiveActiveGroup([roles('192.0.2.101', false)], 'A1')).toBe(false);
  });

  it.each([
    {
      case: 'an active-active TSA announced: BGP, the router ID, its host route',
      aa: true,
      announced: ['192.0.2.100'],
      expected: { settings: bgp, routerId: '192.0.2.11', prefixes: ['192.0.2.100/32'] },
    },
    {
      case: 'served but held down (or no server takes new connections): BGP up, nothing announced',
      aa: true,
      announced: [],
      expected: { settings: bgp, routerId: '192.0.2.11', prefixes: [] },
    },
    {
      case: 'in no active-active group: no BGP at all',
      aa: false,
      announced: [],
      expected: { settings: null, routerId: '192.0.2.11', prefixes: [] },
    },
    {
      case: 'an IPv6 TSA: a /128',
      aa: true,
      announced: ['2001:db8::5'],
      expected: { settings: bgp, routerId: '192.0.2.11', prefixes: ['2001:db8::5/128'] },
    },
  ])('$case', ({ aa, announced, expected }) => {
    expect(
      announcement(
        options,
        'A1',
        aa,
        announced.map((a) => tsa(a)),
      ),
    ).toEqual(expected);
  });

  it('has no router ID for a node whose own address is not configured', () => {
    expect(announcement(options, 'B1', true, []).routerId).toBeNull();
  });

  it('holds a TSA down for a connect timeout and a retry interval (2 s + 1 s here)', () => {
    expect(holdDownMsOf(options)).toBe(3000);
    expect(holdDownMsOf(undefined)).toBe(0);
  });
});
