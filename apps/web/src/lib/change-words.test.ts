import { describe, expect, it } from 'vitest';
import { changeValue, changeWhat } from './change-words';

describe('a configuration change in the GUI’s words', () => {
  it.each([
    ['targetSets.2.deleteAgeSeconds', 'Target Set 2 · Delete Age (s)'],
    ['targetSets.7', 'Target Set 7'],
    ['targetSets.3.servers.1.weight', 'Target Set 3 · Weighting, row 2'],
    ['targetSets.3.leastLoad.mpsFactor', 'Target Set 3 · MPS Factor'],
    ['options.mateIntervalMs', 'Options · Mate beacon interval (ms)'],
    ['options.ipfe.A1.address', 'Options · IPFE A1 address'],
    ['options.forwardedPorts.1', 'Options · Forwarded ports'],
    ['appServers.mp4', 'Application server mp4'],
    [
      'appServers.mp1.example.com.addresses.1',
      'Application server mp1.example.com · Secondary address',
    ],
    ['xsiNetworks.xsi1.cidr', 'XSI network xsi1 · Network (CIDR)'],
    ['peerNodeGroups.east.members.0', 'Peer node group east · Members, line 1'],
    ['options.someNewOption', 'Options · some new option'],
    ['colours.red', 'colours.red'],
    ['constructor.x', 'constructor.x'],
  ])('%s → %s', (path, words) => {
    expect(changeWhat(path)).toBe(words);
  });

  it.each([
    [undefined, '—'],
    [null, 'none'],
    [true, 'Yes'],
    [false, 'No'],
    [600, '600'],
    ['tcpReset', 'tcpReset'],
    [[3868, 3869], '3868, 3869'],
    [[], 'none'],
    [{ name: 'mp4', addresses: ['127.1.1.4'] }, 'Name: mp4; Addresses: 127.1.1.4'],
  ])('the value %j reads %s', (value, words) => {
    expect(changeValue(value)).toBe(words);
  });
});
