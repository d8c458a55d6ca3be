import { describe, expect, it } from 'vitest';
import {
  canonicalCidr,
  canonicalIp,
  cidrContains,
  cidrFamily,
  cidrNetwork,
  cidrsOverlap,
  ipFamily,
  isCidr,
  isIpAddress,
  isUnusableUnicast,
  memberMatches,
  formatHostPort,
  parseHostPort,
} from './net.ts';

describe('isIpAddress', () => {
  it.each(['10.0.0.1', '127.0.0.1', '0.0.0.0', '2001:db8::1', '2001:0db8:0000::0001', '::1'])(
    'accepts %s',
    (text) => expect(isIpAddress(text)).toBe(true),
  );

  it.each([
    '',
    '10.0.0',
    '10.0.0.256',
    '010.0.0.1', // leading zero: octal in some parsers
    '0x0a.0.0.1',
    '10.0.0.1/24',
    '2001:db8::1%eth0', // zone ids never leave the host
    '2001:db8:::1',
    'fe80::g',
    'localhost',
  ])('rejects %s', (text) => expect(isIpAddress(text)).toBe(false));
});

describe('canonicalIp', () => {
  it.each([
    ['2001:0db8::0001', '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['10.0.0.1', '10.0.0.1'],
  ])('writes %s as %s', (text, canonical) => expect(canonicalIp(text)).toBe(canonical));

  it('leaves text that is not an address as it is', () => {
    expect(canonicalIp('not an address')).toBe('not an address');
  });
});

describe('ipFamily', () => {
  it('names the family, or null', () => {
    expect(ipFamily('10.0.0.1')).toBe('ipv4');
    expect(ipFamily('2001:db8::1')).toBe('ipv6');
    expect(ipFamily('10.0.0.0/24')).toBeNull();
  });
});

describe('isUnusableUnicast', () => {
  it.each(['0.0.0.0', '224.0.0.1', '255.255.255.255', '::', 'ff02::1'])(
    '%s cannot carry a connection',
    (text) => expect(isUnusableUnicast(text)).toBe(true),
  );
  it.each(['10.0.0.1', '127.0.0.1', '2001:db8::1'])('%s can', (text) =>
    expect(isUnusableUnicast(text)).toBe(false),
  );
});

describe('CIDRs', () => {
  it('accepts IPv4 and IPv6 networks with a prefix in range', () => {
    expect(isCidr('10.0.0.0/24')).toBe(true);
    expect(isCidr('10.0.0.0/0')).toBe(true);
    expect(isCidr('10.0.0.1/32')).toBe(true);
    expect(isCidr('2001:db8::/64')).toBe(true);
    expect(isCidr('2001:db8::/128')).toBe(true);
  });

  it('rejects a missing or out-of-range prefix', () => {
    expect(isCidr('10.0.0.0')).toBe(false);
    expect(isCidr('10.0.0.0/33')).toBe(false);
    expect(isCidr('2001:db8::/129')).toBe(false);
    expect(isCidr('10.0.0.0/')).toBe(false);
    expect(isCidr('10.0.0.0/-1')).toBe(false);
    expect(isCidr('10.0.0.0/2a')).toBe(false);
  });

  it('computes the network address, clearing host bits', () => {
    expect(cidrNetwork('10.0.0.7/24')).toBe('10.0.0.0/24');
    expect(cidrNetwork('10.0.0.0/24')).toBe('10.0.0.0/24');
    expect(cidrNetwork('2001:db8::1/64')).toBe('2001:db8::/64');
    expect(cidrNetwork('nonsense')).toBeNull();
  });

  it('canonicalizes the address part and keeps the prefix', () => {
    expect(canonicalCidr('2001:0db8:0000::/64')).toBe('2001:db8::/64');
    expect(canonicalCidr('10.0.0.0/24')).toBe('10.0.0.0/24');
  });

  it('names the family', () => {
    expect(cidrFamily('10.0.0.0/24')).toBe('ipv4');
    expect(cidrFamily('2001:db8::/64')).toBe('ipv6');
    expect(cidrFamily('10.0.0.1')).toBeNull();
  });

  it('tells whether a network contains an address, within one family only', () => {
    expect(cidrContains('10.0.0.0/24', '10.0.0.255')).toBe(true);
    expect(cidrContains('10.0.0.0/24', '10.0.1.0')).toBe(false);
    expect(cidrContains('2001:db8::/64', '2001:db8::ffff')).toBe(true);
    expect(cidrContains('2001:db8::/64', '2001:db8:0:1::1')).toBe(false);
    expect(cidrContains('0.0.0.0/0', '2001:db8::1')).toBe(false);
  });

  it('tells whether two networks overlap', () => {
    expect(cidrsOverlap('10.0.0.0/24', '10.0.0.128/25')).toBe(true);
    expect(cidrsOverlap('10.0.0.128/25', '10.0.0.0/24')).toBe(true);
    expect(cidrsOverlap('10.0.0.0/8', '10.200.0.0/16')).toBe(true);
    expect(cidrsOverlap('10.0.0.0/24', '10.0.1.0/24')).toBe(false);
    expect(cidrsOverlap('10.0.0.0/25', '10.0.0.128/25')).toBe(false);
    expect(cidrsOverlap('2001:db8::/64', '2001:db8::/48')).toBe(true);
    expect(cidrsOverlap('2001:db8::/64', '2001:db8:0:1::/64')).toBe(false);
    expect(cidrsOverlap('0.0.0.0/0', '::/0')).toBe(false);
  });
});

describe('memberMatches (peer node group members)', () => {
  it('matches a single address by value, whatever its spelling', () => {
    expect(memberMatches('10.0.0.5', '10.0.0.5')).toBe(true);
    expect(memberMatches('10.0.0.5', '10.0.0.6')).toBe(false);
    expect(memberMatches('2001:0db8::0005', '2001:db8::5')).toBe(true);
  });

  it('matches a CIDR by containment', () => {
    expect(memberMatches('10.0.0.0/30', '10.0.0.3')).toBe(true);
    expect(memberMatches('10.0.0.0/30', '10.0.0.4')).toBe(false);
  });
});

describe('parseHostPort', () => {
  it('reads IPv4, bracketed IPv6 and host names with a port', () => {
    expect(parseHostPort('127.0.0.11:8701')).toEqual({ host: '127.0.0.11', port: 8701 });
    expect(parseHostPort('[2001:db8::1]:8701')).toEqual({ host: '2001:db8::1', port: 8701 });
    expect(parseHostPort('localhost:1')).toEqual({ host: 'localhost', port: 1 });
  });

  it.each([
    '127.0.0.1',
    '127.0.0.1:0',
    '127.0.0.1:65536',
    '2001:db8::1:80',
    '[nonsense]:80',
    ':80',
    'a b:80',
  ])('refuses %j', (text) => {
    expect(parseHostPort(text)).toBeNull();
  });
});

describe('formatHostPort', () => {
  it('brackets IPv6 addresses so the port cannot be read as part of them', () => {
    expect(formatHostPort('fd00:1::101', 3869)).toBe('[fd00:1::101]:3869');
    expect(formatHostPort('127.0.0.100', 3868)).toBe('127.0.0.100:3868');
  });

  it('is read back by parseHostPort', () => {
    for (const host of ['fd00:1::101', '127.0.0.1', '::1']) {
      expect(parseHostPort(formatHostPort(host, 80))).toEqual({ host, port: 80 });
    }
  });
});
