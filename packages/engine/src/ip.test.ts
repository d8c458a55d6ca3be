import { canonicalIp } from '@ipfe/schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIpv4Mapped, newIpWords, parseIp, samePrefix } from './ip.ts';

function words(text: string): number[] | null {
  const out = newIpWords();
  return parseIp(text, out) ? [...out] : null;
}

describe('parseIp', () => {
  it('reads IPv4 as the IPv4-mapped IPv6 address', () => {
    expect(words('10.0.0.1')).toEqual([0, 0, 0xffff, 0x0a000001]);
    expect(words('255.255.255.255')).toEqual([0, 0, 0xffff, 0xffffffff]);
    expect(words('::ffff:10.0.0.1')).toEqual(words('10.0.0.1'));
  });

  it('refuses what is not a dotted quad', () => {
    for (const bad of ['', '10.0.0', '10.0.0.1.2', '256.0.0.1', '01.0.0.1', '1..2.3', 'a.b.c.d']) {
      expect(words(bad), bad).toBeNull();
    }
  });

  it('reads IPv6 with and without ::, and with a trailing dotted quad', () => {
    expect(words('::')).toEqual([0, 0, 0, 0]);
    expect(words('::1')).toEqual([0, 0, 0, 1]);
    expect(words('2001:db8::')).toEqual([0x20010db8, 0, 0, 0]);
    expect(words('2001:db8:0:0:1:0:0:1')).toEqual([0x20010db8, 0, 0x00010000, 1]);
    expect(words('2001:DB8::1:0:0:1')).toEqual([0x20010db8, 0, 0x00010000, 1]);
    expect(words('64:ff9b::192.0.2.33')).toEqual([0x0064ff9b, 0, 0, 0xc0000221]);
  });

  it('refuses malformed IPv6', () => {
    for (const bad of [':', ':1', '1:', '1:::2', '1::2::3', '12345::', 'fe80::1%eth0', 'g::1']) {
      expect(words(bad), bad).toBeNull();
    }
    expect(words('1:2:3:4:5:6:7:8:9')).toBeNull();
    expect(words('1:2:3:4::5:6:7:8')).toBeNull();
  });

  it('agrees with the schema on every spelling of random IPv6 addresses', () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (groups) => {
        const full = groups.map((g) => g.toString(16)).join(':');
        const expected = [0, 1, 2, 3].map(
          (w) => ((groups[2 * w] ?? 0) * 65536 + (groups[2 * w + 1] ?? 0)) >>> 0,
        );
        expect(words(full)).toEqual(expected);
        expect(words(canonicalIp(full))).toEqual(expected);
      }),
    );
  });
});

describe('samePrefix and isIpv4Mapped', () => {
  it('compares the leading bits of the 128-bit form', () => {
    const a = newIpWords();
    const b = newIpWords();
    parseIp('10.1.2.3', a);
    parseIp('10.1.2.200', b);
    expect(samePrefix(a, b, 96 + 24)).toBe(true);
    expect(samePrefix(a, b, 96 + 25)).toBe(false);
    expect(samePrefix(a, b, 0)).toBe(true);
    expect(isIpv4Mapped(a)).toBe(true);
    parseIp('2001:db8::1', b);
    expect(isIpv4Mapped(b)).toBe(false);
  });
});
