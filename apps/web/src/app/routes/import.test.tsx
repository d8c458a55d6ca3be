import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ImportPreview } from '@/features/import/components/import-preview';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp, renderWithRouter } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

describe('the Import page', () => {
  it('is in the menu of an operator, with a labelled file chooser', async () => {
    installFakeApi();
    renderApp('/import');
    const chooser = await screen.findByLabelText('Source CSV file');
    expect(chooser).toHaveAttribute('type', 'file');
    const menu = screen.getByRole('navigation', { name: 'Main menu' });
    expect(within(menu).getByRole('link', { name: 'Import' })).toHaveAttribute('href', '/import');
    expect(screen.queryByRole('button', { name: 'Commit' })).not.toBeInTheDocument();
  });

  it('is neither in the menu of a viewer nor open to one', async () => {
    installFakeApi({ user: { name: 'vera', role: 'viewer' } });
    renderApp('/import');
    expect(await screen.findByText('Not permitted.')).toBeInTheDocument();
    const menu = screen.getByRole('navigation', { name: 'Main menu' });
    expect(within(menu).queryByRole('link', { name: 'Import' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Source CSV file')).not.toBeInTheDocument();
  });

  it('shows every problem, every column not imported and every change of a preview', () => {
    renderWithRouter(
      <ImportPreview
        preview={{
          basedOn: 4,
          changes: {
            added: [{ path: 'targetSets.7', value: { number: 7 } }],
            removed: [],
            changed: [
              { path: 'options.mateIntervalMs', old: 100, new: 200 },
              { path: 'targetSets.2.deleteAgeSeconds', old: 700, new: 600 },
            ],
          },
          overwrites: [{ path: 'targetSets.2.deleteAgeSeconds', revision: 5, author: 'olivia' }],
          problems: [
            {
              path: 'line 5, column Server1Weighting',
              message: 'Weighting must be a whole number from 0 to 65535',
              line: 5,
              column: 'Server1Weighting',
            },
          ],
          notImported: [
            {
              table: 'IpfeOption',
              column: 'PacketRateLimit',
              line: 1,
              message: 'not imported: column PacketRateLimit of IpfeOption',
            },
          ],
        }}
      />,
    );
    expect(
      screen.getByText(
        (_, el) =>
          el?.tagName === 'LI' &&
          el.textContent ===
            'line 5, column Server1Weighting: Weighting must be a whole number from 0 to 65535',
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText('not imported: column PacketRateLimit of IpfeOption (line 1)'),
    ).toBeInTheDocument();
    const changes = screen.getByRole('table', { name: 'What the import changes' });
    // An added entity had nothing before: said with a dash, as elsewhere, not an empty cell.
    // In the GUI's words, never JSON or internal names.
    expect(
      within(changes).getByRole('row', { name: 'Added Target Set 7 — TS Number: 7' }),
    ).toBeInTheDocument();
    expect(
      within(changes).getByRole('row', {
        name: 'Changed Options · Mate beacon interval (ms) 100 200',
      }),
    ).toBeInTheDocument();
    // A change that undoes another operator's later commit says so.
    expect(
      within(changes).getByRole('row', {
        name: /^Changed Target Set 2 · Delete Age \(s\).*Undoes revision 5 by olivia.* 700 600$/,
      }),
    ).toBeInTheDocument();
    expect(changes).not.toHaveTextContent(/[{}"]|deleteAgeSeconds/);
  });
});
