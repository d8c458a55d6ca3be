import { deriveConfiguration, emptyConfiguration, type ConfigDocument } from '@ipfe/schema';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { appServers, options, targetSet1, xsiNetworks } from '@/testing/fixtures';
import { RevisionDiff } from './revision-diff';
import { isWithin, keyedConfig, linesOf } from './document-lines';

const doc = (revision: number, config = emptyConfiguration()): ConfigDocument => ({
  formatVersion: 1,
  revision,
  sha256: '0'.repeat(64),
  config: deriveConfiguration(config),
});

describe('document lines', () => {
  it('knows the path of every line, with collections keyed as the API diff names them', () => {
    const lines = linesOf(keyedConfig(doc(1, { ...emptyConfiguration(), xsiNetworks }).config));
    expect(lines).toContainEqual({
      text: '      "cidr": "fd00::/64"',
      path: 'xsiNetworks.xsi6.cidr',
    });
    expect(lines).toContainEqual({ text: '    "xsi6": {', path: 'xsiNetworks.xsi6' });
    expect(isWithin('xsiNetworks.xsi6.cidr', ['xsiNetworks.xsi6'])).toBe(true);
    expect(isWithin('xsiNetworks.xsi60', ['xsiNetworks.xsi6'])).toBe(false);
  });
});

describe('RevisionDiff', () => {
  it('shows two revisions side by side with the changed paths highlighted', () => {
    const base = { ...emptyConfiguration(), options, xsiNetworks, appServers };
    const from = doc(3, base);
    const ts = { ...targetSet1, servers: targetSet1.servers.map((s) => ({ ...s })) };
    const to = doc(4, { ...base, targetSets: [ts] });
    const diff = {
      from: 3,
      to: 4,
      added: [{ path: 'targetSets.1', value: to.config.targetSets[0] }],
      removed: [{ path: 'xsiNetworks.xsi6', value: xsiNetworks[1] }],
      changed: [{ path: 'options.mateIntervalMs', old: 100, new: 200 }],
    };
    render(<RevisionDiff diff={diff} from={from} to={to} />);
    const table = screen.getByRole('table', { name: '3 changes from revision 3 to revision 4' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringMatching(/^options\.mateIntervalMschanged100200$/),
      expect.stringMatching(/^targetSets\.1added/),
      expect.stringMatching(/^xsiNetworks\.xsi6removed/),
    ]);
    const left = screen.getByRole('region', { name: 'Revision 3' });
    const right = screen.getByRole('region', { name: 'Revision 4' });
    const marked = (side: HTMLElement) =>
      [...side.querySelectorAll('[data-changed]')].map((l) => l.textContent!.trim());
    expect(marked(left)).toContain('"mateIntervalMs": 100,');
    expect(marked(left)).toContain('"cidr": "fd00::/64"');
    expect(marked(right)).toContain('"mateIntervalMs": 100,');
    expect(marked(right)).toContain('"address": "192.168.10.100",');
    expect(marked(right)).not.toContain('"cidr": "fd00::/64"');
  });
});
