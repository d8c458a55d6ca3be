import { screen, waitFor, within } from '@testing-library/react';
import type { SourceCsvPreview } from '@ipfe/schema';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ImportPreview } from '@/features/import/components/import-preview';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp, renderWithRouter } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

describe('the Import page', () => {
  it('is in the menu of an operator, with a labelled file chooser', async () => {
    installFakeApi();
    renderApp('/import');
    const chooser = await screen.findByLabelText('File to import');
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
    expect(screen.queryByLabelText('File to import')).not.toBeInTheDocument();
  });

  it('shows every problem, every column not imported and every change of a preview', () => {
    renderWithRouter(
      <ImportPreview
        preview={{
          basedOn: 4,
          format: 'named',
          serversToCreate: [],
          createServers: false,
          notes: [],
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

  it('offers the two layouts by name, reads the file as chosen, and commits with the servers the operator accepts to create', async () => {
    const { fetchMock: fake } = installFakeApi();
    const asked: string[] = [];
    const previewOf = (url: URL): SourceCsvPreview => {
      const create = url.searchParams.get('createServers') === 'true';
      return {
        basedOn: 7,
        format: 'source',
        changes: {
          added: [
            { path: 'targetSets.5', value: { number: 5 } },
            ...(create ? [{ path: 'appServers.127.1.1.11', value: { name: '127.1.1.11' } }] : []),
          ],
          removed: [],
          changed: [],
        },
        overwrites: [],
        problems: create
          ? []
          : [
              {
                path: 'line 4, column 3 (IpAddress)',
                message:
                  '127.1.1.11 is not an application server here: accept the offer to create application server 127.1.1.11, or add it under Network › Application Servers',
                line: 4,
                column: '3 (IpAddress)',
              },
            ],
        notImported: [],
        serversToCreate: [
          { name: '127.1.1.11', addresses: ['127.1.1.11'], xsiNetworks: ['xsi4'], lines: [4] },
        ],
        createServers: create,
        notes: ["The source's public pages do not show the columns of IpfeListTsa: decision 024"],
      };
    };
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
        const url = new URL(String(input), 'http://oam.test');
        if (!url.pathname.startsWith('/api/import/')) return fake(input, init);
        asked.push(`${url.pathname}${url.search}`);
        if (url.pathname.endsWith('/preview')) return Response.json(previewOf(url));
        return Response.json(
          { number: 8, author: 'olga', createdAt: '', summary: 'Import', sha256: 'a'.repeat(64) },
          { status: 201, headers: { 'x-ipfe-revision': '8' } },
        );
      }),
    );
    const { user } = renderApp('/import');
    const layouts = await screen.findByRole('radiogroup', { name: 'Layout' });
    expect(
      within(layouts)
        .getAllByRole('radio')
        .map((r) => r.nextSibling?.textContent),
    ).toEqual([
      'As the file shows',
      "The source product's bulk file",
      "Named-column CSV (this OAM's)",
    ]);
    await user.click(
      within(layouts).getByRole('radio', { name: "The source product's bulk file" }),
    );
    await user.upload(
      screen.getByLabelText('File to import'),
      new File(['IPFE,Options'], 'site.csv', { type: 'text/csv' }),
    );
    const offer = await screen.findByRole('checkbox', {
      name: 'Create this application server with the import (one commit)',
    });
    expect(asked).toEqual(['/api/import/source-csv/preview?format=source']);
    expect(screen.getByRole('region', { name: 'Read as' })).toHaveTextContent(
      "The source product's bulk file: its own Bulk Export",
    );
    expect(screen.getByRole('region', { name: 'Read as' })).toHaveTextContent('decision 024');
    const servers = screen.getByRole('table', {
      name: 'Application servers the import can create',
    });
    expect(
      within(servers).getByRole('row', { name: '127.1.1.11 127.1.1.11 xsi4 4' }),
    ).toBeVisible();
    expect(screen.getByRole('region', { name: 'Problems' })).toHaveTextContent(
      'line 4, column 3 (IpAddress): 127.1.1.11 is not an application server here',
    );
    expect(screen.queryByRole('button', { name: 'Commit' })).not.toBeInTheDocument();

    // Accepted with the keyboard: the preview asked again shows the server among the changes.
    offer.focus();
    await user.keyboard(' ');
    await screen.findByRole('button', { name: 'Commit' });
    expect(offer).toHaveFocus();
    expect(offer).toBeChecked();
    expect(asked.at(-1)).toBe('/api/import/source-csv/preview?format=source&createServers=true');
    expect(
      within(screen.getByRole('region', { name: 'What the import changes' })).getByRole('row', {
        name: /^Added Application server 127\.1\.1\.11/,
      }),
    ).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Commit' }));
    await waitFor(() =>
      expect(asked.at(-1)).toBe(
        '/api/import/source-csv?basedOn=7&format=source&createServers=true',
      ),
    );
    expect(await screen.findByText('Imported site.csv as revision 8.')).toBeVisible();
  });
});
