import { describe, expect, it } from 'vitest';
import { emptyConfiguration } from './configuration.ts';
import { deriveConfiguration } from './derive.ts';
import { keyedConfig } from './keyed-config.ts';

describe('keyedConfig', () => {
  it('keys each collection by identity, so that removing one entity leaves the others where they were', () => {
    const xsiNetworks = [
      { name: 'xsi-a', cidr: '10.0.0.0/24' },
      { name: 'xsi-b', cidr: '10.0.1.0/24' },
    ];
    const before = keyedConfig(deriveConfiguration({ ...emptyConfiguration(), xsiNetworks }));
    const after = keyedConfig(
      deriveConfiguration({ ...emptyConfiguration(), xsiNetworks: xsiNetworks.slice(1) }),
    );
    expect(Object.keys(before.xsiNetworks)).toEqual(['xsi-a', 'xsi-b']);
    expect(after.xsiNetworks).toEqual({ 'xsi-b': before.xsiNetworks['xsi-b'] });
    expect(before.targetSets).toEqual({});
  });
});
