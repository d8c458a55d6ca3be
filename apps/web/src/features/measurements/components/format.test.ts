import { describe, expect, it } from 'vitest';
import { formatRate, formatTotal, measurementTitle } from './format';

describe('measurement words', () => {
  it('names a measurement by our label and the source name', () => {
    expect(measurementTitle('rxBytes')).toBe('Bytes received (RxTsaBytes)');
    expect(measurementTitle('unexpectedTcp')).toBe('Unexpected TCP packets (TsaUnexpctedTcp)');
  });

  it.each([
    ['rxBytes', null, 'not counted'],
    ['rxBytes', 0, '0 B/s'],
    ['rxBytes', 512, '512 B/s'],
    ['rxBytes', 1_250, '1.25 kB/s'],
    ['txBytes', 12_345_678, '12.3 MB/s'],
    ['unexpectedSctp', 2.5, '2.5 packets/s'],
    ['rejected', 0.1, '0.1 refusals/s'],
  ] as const)('the rate of %s at %j reads %j', (name, value, text) => {
    expect(formatRate(name, value)).toBe(text);
  });

  it.each([
    ['rxBytes', null, 'not counted'],
    ['rxBytes', 50_000, '50,000 bytes'],
    ['unexpectedTcp', 3, '3 packets'],
    ['rejected', 0, '0 refused'],
  ] as const)('the total of %s at %j reads %j', (name, value, text) => {
    expect(formatTotal(name, value)).toBe(text);
  });
});
