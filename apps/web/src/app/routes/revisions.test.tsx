import type { RevisionDiff, RevisionInfo } from '@ipfe/schema';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

describe('a revision page', () => {
  it('offers no Download or Changes for a revision that does not exist', async () => {
    installFakeApi();
    renderApp('/revisions/999');
    expect(await screen.findByText('Revision 999 does not exist')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Download' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Changes' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'All revisions' })).toHaveAttribute(
      'href',
      '/revisions',
    );
  });
});

const revision = (number: number, summary: string): RevisionInfo => ({
  number,
  author: 'olga',
  createdAt: '2026-12-03T10:00:00.000Z',
  summary,
  sha256: `${number}`.repeat(64).slice(0, 64),
});

/** Revision 9 runs; 8 and 9 added an application server and a Target Set after revision 7. */
const log = [
  revision(9, 'Insert Target Set 3'),
  revision(8, 'Insert application server mp4'),
  revision(7, 'Edit Target Set 2'),
];

const nineToSeven: RevisionDiff = {
  from: 9,
  to: 7,
  added: [],
  removed: [
    { path: 'appServers.mp4', value: { name: 'mp4', addresses: ['127.1.1.4'] } },
    { path: 'targetSets.3', value: { number: 3, family: 'ipv4' } },
  ],
  changed: [{ path: 'targetSets.2.deleteAgeSeconds', old: 700, new: 600 }],
};

describe('the rollback confirmation', () => {
  it('names what the rollback changes, as the import preview does, before it is confirmed', async () => {
    let answer = () => {};
    const { state } = installFakeApi({
      revisions: log,
      diffs: { '9→7': nineToSeven },
      diffsAnswered: new Promise<void>((resolve) => (answer = resolve)),
    });
    const { user } = renderApp('/revisions');
    await user.click(await screen.findByRole('button', { name: 'Roll back to revision 7' }));
    const dialog = screen.getByRole('dialog', { name: 'Roll back to revision 7?' });
    expect(within(dialog).getByRole('status')).toHaveTextContent('Loading the changes…');
    answer();

    const changes = await within(dialog).findByRole('table', {
      name: 'What the rollback to revision 7 changes',
    });
    expect(dialog).toHaveTextContent('3 changes');
    expect(
      within(changes).getByRole('row', {
        name: 'Removed Application server mp4 Name: mp4; Addresses: 127.1.1.4 —',
      }),
    ).toBeInTheDocument();
    expect(
      within(changes).getByRole('row', { name: /^Removed Target Set 3 TS Number: 3; .* —$/ }),
    ).toBeInTheDocument();
    expect(
      within(changes).getByRole('row', { name: 'Changed Target Set 2 · Delete Age (s) 700 600' }),
    ).toBeInTheDocument();
    expect(changes).not.toHaveTextContent(/[{}"]|deleteAgeSeconds/);
    // From the running revision to the one rolled back to.
    expect(state.log).toContain('GET /api/revisions/7/diff');
    expect(within(dialog).getByRole('button', { name: 'Roll back' })).toBeEnabled();
    // A keyboard reaches the list (to scroll a long one) without leaving the dialog.
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.tab({ shift: true });
    expect(
      within(dialog).getByRole('region', { name: 'What the rollback to revision 7 changes' }),
    ).toHaveFocus();
    await user.tab({ shift: true });
    expect(within(dialog).getByRole('button', { name: 'Roll back' })).toHaveFocus();
  });

  it('counts from the revision running now, not the one the page showed when it loaded', async () => {
    const { state } = installFakeApi({
      revisions: log.slice(1),
      diffs: {
        '8→7': { ...nineToSeven, from: 8, removed: nineToSeven.removed.slice(0, 1), changed: [] },
        '9→7': nineToSeven,
      },
    });
    const { user } = renderApp('/revisions');
    const rollBack = await screen.findByRole('button', { name: 'Roll back to revision 7' });
    // Someone else commits revision 9 (Target Set 3) while the page shows 8 as running.
    state.revisions = log;
    await user.click(rollBack);
    const dialog = screen.getByRole('dialog', { name: 'Roll back to revision 7?' });
    const changes = await within(dialog).findByRole('table', {
      name: 'What the rollback to revision 7 changes',
    });
    expect(dialog).toHaveTextContent('3 changes');
    expect(
      within(changes).getByRole('row', { name: /^Removed Target Set 3 / }),
    ).toBeInTheDocument();
  });

  it('says when the revision holds the running configuration already', async () => {
    installFakeApi({
      revisions: log,
      diffs: { '9→7': { ...nineToSeven, removed: [], changed: [] } },
    });
    const { user } = renderApp('/revisions');
    await user.click(await screen.findByRole('button', { name: 'Roll back to revision 7' }));
    const dialog = screen.getByRole('dialog', { name: 'Roll back to revision 7?' });
    expect(
      await within(dialog).findByText(
        'No change: revision 7 holds the running configuration (revision 9).',
      ),
    ).toBeInTheDocument();
    expect(within(dialog).queryByRole('table')).not.toBeInTheDocument();
  });

  it('says when the changes cannot be read, and can still be cancelled', async () => {
    installFakeApi({ revisions: log, diffs: {} });
    const { user } = renderApp('/revisions');
    await user.click(await screen.findByRole('button', { name: 'Roll back to revision 7' }));
    const dialog = screen.getByRole('dialog', { name: 'Roll back to revision 7?' });
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'The changes could not be read: No diff 9→7 in this fake',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
