import { describe, expect, it } from 'vitest';
import { context, targetSet1 } from '@/testing/fixtures';
import { editValues } from './form-model';
import { liveIssues, messageAt } from './live-checks';

describe('the checks that follow the typing', () => {
  const a = { path: 'deleteAgeSeconds', message: 'from the form' };
  const b = { path: 'deleteAgeSeconds', message: 'from the server' };
  const c = { path: 'secondary.activeIpfe', message: 'complement it' };
  it.each([
    ['deleteAgeSeconds', [[a], [b]], 'from the form'],
    ['deleteAgeSeconds', [[], [b]], 'from the server'],
    ['secondary.activeIpfe', [[a], [c]], 'complement it'],
    ['primary.address', [[a], [b, c]], undefined],
    ['deleteAgeSeconds', [], undefined],
  ])('finds the message at %s in the first list that has one', (path, lists, message) => {
    expect(messageAt(path, ...lists)).toBe(message);
  });

  it('says the rules that span entities, and what the secondary family lacks', () => {
    const values = editValues(targetSet1, context().options);
    values.deleteAgeSeconds = 60;
    expect(liveIssues(values, context({ editing: 1 }))).toMatchObject({
      errors: [],
      warnings: [{ path: 'deleteAgeSeconds' }],
      secondaryNote: null,
    });
    values.secondary.address = 'fd00::200';
    const ipv4Only = context({
      editing: 1,
      appServers: context().appServers.map((s) => ({
        ...s,
        addresses: s.addresses.filter((a) => !a.includes(':')),
      })),
    });
    expect(liveIssues(values, ipv4Only).secondaryNote).toMatch(/^No listed application server/);
  });
});
