import { MESSAGES, optionsSchema } from '@ipfe/schema';
import { describe, expect, it } from 'vitest';
import { appServers, context, targetSet1 } from '@/testing/fixtures';
import {
  checkInContext,
  complementOf,
  editValues,
  insertDefaults,
  placeTargetSetIssue,
  secondaryChoices,
  secondaryGap,
  toTargetSetBody,
} from './form-model';
import { insertRefusal } from './target-set-numbers';

describe('the Target Set form model', () => {
  it.each([
    [[], null],
    [Array.from({ length: 31 }, (_, i) => ({ number: i + 1 })), null],
    [
      Array.from({ length: 32 }, (_, i) => ({ number: i + 1 })),
      'All 32 Target Set numbers are in use',
    ],
  ])('refuses an Insert only when every number is in use (%#)', (targetSets, refusal) => {
    expect(insertRefusal(targetSets)).toBe(refusal);
  });

  it('complements the Active IPFE with its mate, else with another configured slot', () => {
    const { options } = context();
    expect(complementOf(options, 'A1')).toBe('A2');
    const onlyA1B1 = optionsSchema.parse({
      ipfe: { A1: { address: '10.0.0.1' }, B1: { address: '10.0.0.3' } },
    });
    expect(complementOf(onlyA1B1, 'A1')).toBe('B1');
    expect(complementOf(optionsSchema.parse({}), '')).toBe('');
  });

  it('sends no secondary, and no secondary row addresses, when the Secondary Address is empty', () => {
    const values = insertDefaults('ipv4', context());
    values.primary.address = '192.168.10.200';
    values.servers[0] = {
      ...values.servers[0]!,
      address: '192.168.10.11',
      secondaryAddress: 'fd00::11',
    };
    expect(toTargetSetBody(values)).toMatchObject({
      secondary: null,
      servers: [{ address: '192.168.10.11', secondaryAddress: null }],
    });
    values.secondary = { address: 'fd00::200', activeIpfe: 'A2' };
    expect(toTargetSetBody(values)).toMatchObject({
      secondary: { address: 'fd00::200', activeIpfe: 'A2' },
      servers: [{ secondaryAddress: 'fd00::11' }],
    });
  });

  it('round-trips a Target Set through the form', () => {
    const body = toTargetSetBody(editValues(targetSet1, context().options));
    expect(body).toMatchObject({
      number: 1,
      primary: { address: '192.168.10.100', activeIpfe: 'A1' },
      secondary: null,
      servers: [
        { address: '192.168.10.11', secondaryAddress: null, description: 'first', weight: 100 },
        { address: '192.168.10.12', secondaryAddress: null, description: '', weight: 50 },
      ],
    });
  });

  it('runs the rules that span entities as the API does, at the same paths', () => {
    const values = editValues(targetSet1, context().options);
    values.deleteAgeSeconds = 60;
    values.primary.address = '192.168.10.11';
    values.servers[1]!.weight = 0;
    values.servers[0]!.weight = 0;
    // Edited: its own old version does not count as another Target Set.
    const issues = checkInContext(values, context({ editing: 1 }));
    expect(issues.errors).toEqual([
      {
        path: 'primary.address',
        message: '192.168.10.11 is an address of application server mp1',
      },
      { path: 'servers', message: MESSAGES.allWeightsZero },
    ]);
    expect(issues.warnings).toEqual([
      { path: 'deleteAgeSeconds', message: MESSAGES.deleteAgeInadvisable },
    ]);
  });

  it('places every API path on a field, or on none', () => {
    expect(placeTargetSetIssue('servers', false)).toBe('servers.root');
    expect(placeTargetSetIssue('servers.3.weight', false)).toBe('servers.3.weight');
    expect(placeTargetSetIssue('servers.3', false)).toBe('servers.3.address');
    expect(placeTargetSetIssue('leastLoad.mpsFactor', false)).toBe('leastLoad.mpsFactor');
    expect(placeTargetSetIssue('secondary', false)).toBe('secondary.address');
    expect(placeTargetSetIssue('number', false)).toBe('number');
    expect(placeTargetSetIssue('number', true)).toBeNull();
    expect(placeTargetSetIssue('family', true)).toBeNull();
  });

  it('offers as secondary only the same server’s other addresses, of the secondary TSA’s family', () => {
    expect(secondaryChoices(appServers, '192.168.10.11', 'fd00::200')).toEqual(['fd00::11']);
    expect(secondaryChoices(appServers, '192.168.10.11', '192.168.10.201')).toEqual([]);
    expect(secondaryChoices(appServers, '192.168.10.14', 'fd00::200')).toEqual([]);
    expect(secondaryChoices(appServers, '', 'fd00::200')).toEqual([]);
  });

  it('says which listed servers have no address of the secondary TSA’s family, and when none has', () => {
    const rows = (...addresses: string[]) => addresses.map((address) => ({ address }));
    expect(secondaryGap(appServers, rows('192.168.10.11'), 'fd00::200')).toBeNull();
    expect(secondaryGap(appServers, rows('192.168.10.11'), '')).toBeNull();
    expect(secondaryGap(appServers, rows('192.168.10.11', '192.168.10.14'), 'fd00::200')).toBe(
      'mp4 (row 2) has no IPv6 address to be the Secondary IP Address',
    );
    expect(secondaryGap(appServers, rows('192.168.10.14'), 'fd00::200')).toMatch(
      /^No listed application server has an IPv6 address to be its Secondary IP Address \(mp4\): use an IPv4 Secondary Address/,
    );
    expect(secondaryGap(appServers, rows('192.168.10.11', ''), '192.168.10.201')).toMatch(
      /^No listed application server has a second IPv4 address .* \(mp1\)/,
    );
    const ipv4Only = appServers.filter((s) => s.name === 'mp4');
    expect(secondaryGap(ipv4Only, rows(''), 'fd00::200')).toMatch(
      /^No application server has an IPv6 address/,
    );
  });
});
