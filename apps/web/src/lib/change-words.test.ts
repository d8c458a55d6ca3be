import type { ConfigDiff, RevisionDiff } from '@ipfe/schema';
import { describe, expect, it } from 'vitest';
import { changeRows, changeValue, changeWhat, type ChangeRow } from './change-words';

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
    ['appServers.mp4.initiatorPortRange', 'Application server mp4 · Initiator Port Range'],
    ['appServers.mp4.initiatorPortRange.end', 'Application server mp4 · Initiator Port Range end'],
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
    [{ start: 17920, end: 18431 }, '17920–18431'],
    [
      { addresses: ['10.97.1.24'], initiatorPortRange: { end: 18431, start: 17920 }, name: 'mp4' },
      'Name: mp4; Addresses: 10.97.1.24; Initiator Port Range: 17920–18431',
    ],
    [{ family: 'ipv4', number: 3 }, 'TS Number: 3; Address family: ipv4'],
    [{ start: 1, end: 2, step: 3 }, 'start: 1; end: 2; step: 3'],
  ])('the value %j reads %s', (value, words) => {
    expect(changeValue(value)).toBe(words);
  });
});

describe('the lines of a change list', () => {
  const none = { added: [], removed: [], changed: [] };
  it.each<[string, ConfigDiff | RevisionDiff, ChangeRow[]]>([
    ['no change', none, []],
    [
      'an added entity has nothing before',
      { ...none, added: [{ path: 'targetSets.7', value: { number: 7 } }] },
      [{ kind: 'Added', path: 'targetSets.7', new: { number: 7 } }],
    ],
    [
      'a removed entity has nothing after',
      { ...none, removed: [{ path: 'appServers.mp4', value: { name: 'mp4' } }] },
      [{ kind: 'Removed', path: 'appServers.mp4', old: { name: 'mp4' } }],
    ],
    [
      'a changed field has both',
      { ...none, changed: [{ path: 'targetSets.2.deleteAgeSeconds', old: 700, new: 600 }] },
      [{ kind: 'Changed', path: 'targetSets.2.deleteAgeSeconds', old: 700, new: 600 }],
    ],
    [
      'a revision diff (with its from and to) reads the same, one entity after the other',
      {
        from: 9,
        to: 7,
        added: [{ path: 'targetSets.10', value: { number: 10 } }],
        removed: [
          { path: 'targetSets.3', value: { number: 3 } },
          { path: 'appServers.mp4', value: { name: 'mp4' } },
        ],
        changed: [{ path: 'targetSets.2.deleteAgeSeconds', old: 700, new: 600 }],
      },
      [
        { kind: 'Removed', path: 'appServers.mp4', old: { name: 'mp4' } },
        { kind: 'Changed', path: 'targetSets.2.deleteAgeSeconds', old: 700, new: 600 },
        { kind: 'Removed', path: 'targetSets.3', old: { number: 3 } },
        { kind: 'Added', path: 'targetSets.10', new: { number: 10 } },
      ],
    ],
  ])('%s', (_, diff, rows) => {
    expect(changeRows(diff)).toEqual(rows);
  });
});
