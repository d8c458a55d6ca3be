import type { MeasurementsView } from '@ipfe/schema';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

/** The start of the step `ago` steps of 10 s before now. */
const stepAgo = (ago: number) =>
  new Date((Math.floor(Date.now() / 10_000) - ago) * 10_000).toISOString();

const none = { rxSctpBytes: null, unexpectedTcp: null, unexpectedSctp: null };

function view(overrides: Partial<MeasurementsView> = {}): MeasurementsView {
  return {
    windowSeconds: 3600,
    stepSeconds: 10,
    accounting: true,
    reporting: ['A1', 'A2'],
    targetSets: [
      {
        number: 1,
        tsa: '192.168.10.100',
        totals: { rxBytes: 50_000, rejected: 3, ...none },
        rates: [
          { at: stepAgo(2), rxBytes: 2_000, rejected: 0.1, ...none },
          { at: stepAgo(1), rxBytes: 1_250, rejected: 0, ...none },
        ],
        servers: [
          {
            address: '192.168.10.11',
            txBytes: 30_000,
            rates: [{ at: stepAgo(1), txBytes: 750 }],
          },
          { address: '192.168.10.12', txBytes: 20_000, rates: [] },
        ],
      },
    ],
    ...overrides,
  };
}

const rowOf = (table: HTMLElement, name: RegExp) => within(table).getByRole('row', { name });

describe('the Measurements page', () => {
  it('shows per Target Set and server the source’s measurements: the table beside a chart of each rate', async () => {
    installFakeApi({ measurements: view() });
    const { user, router } = renderApp('/target-sets');
    // Opened from the menu, by keyboard.
    const link = await screen.findByRole('link', { name: 'Measurements' });
    link.focus();
    await user.keyboard('{Enter}');
    expect(router.state.location.pathname).toBe('/measurements');
    expect(
      await screen.findByRole('heading', { name: 'Measurements', level: 1 }),
    ).toBeInTheDocument();

    const panel = await screen.findByRole('region', { name: 'Target Set 1 192.168.10.100' });
    const table = within(panel).getByRole('table', { name: 'Measurements of Target Set 1' });
    expect(rowOf(table, /^Bytes received \(RxTsaBytes\)/)).toHaveTextContent(
      /50,000 bytes\s*1\.25 kB\/s$/,
    );
    expect(rowOf(table, /^Refused \(TxReject\)/)).toHaveTextContent(/3 refused\s*0 refusals\/s$/);
    expect(rowOf(table, /^SCTP bytes received \(RxTsaBytesSctp\)/)).toHaveTextContent(
      /not counted\s*not counted$/,
    );
    // Per server, named as the Application Servers are.
    expect(
      rowOf(table, /^Bytes sent to the server \(TxAsBytes\) mp1 192\.168\.10\.11/),
    ).toHaveTextContent(/30,000 bytes\s*750 B\/s$/);
    // A server no step has been reported of yet: its total, and no rate yet.
    expect(rowOf(table, /192\.168\.10\.12/)).toHaveTextContent(/20,000 bytes\s*—$/);

    const chart = within(panel).getByRole('img', {
      name: 'Bytes received (RxTsaBytes) per second, Target Set 1',
    });
    expect(chart).toHaveAccessibleDescription(
      'Latest 1.25 kB/s, highest 2 kB/s, over the last 60 min',
    );
    expect(
      within(panel).getByRole('img', {
        name: 'Bytes sent to the server (TxAsBytes), mp1 192.168.10.11 per second, Target Set 1',
      }),
    ).toHaveAccessibleDescription('Latest 750 B/s, highest 750 B/s, over the last 60 min');
    expect(
      within(panel).getByRole('img', {
        name: 'Bytes sent to the server (TxAsBytes), mp2 192.168.10.12 per second, Target Set 1',
      }),
    ).toHaveAccessibleDescription('No figures yet');
    // What no data path counts has no chart: it says so instead.
    expect(within(panel).queryByRole('img', { name: /RxTsaBytesSctp/ })).toBeNull();
    expect(within(panel).getAllByRole('img')).toHaveLength(4);
    expect(screen.queryByText('Accounting is off')).toBeNull();
  });

  it('says that Accounting is off when the options say so, and links to them', async () => {
    installFakeApi({ measurements: view({ accounting: false }) });
    const { user, router } = renderApp('/measurements');
    const alert = (await screen.findByText('Accounting is off')).closest('.alert') as HTMLElement;
    expect(alert).toHaveTextContent(/Packet and byte measurements stand still/);
    await user.click(within(alert).getByRole('link', { name: 'Options' }));
    expect(router.state.location.pathname).toBe('/options');
  });

  it('reads "not counted" everywhere while no agent reports measurements', async () => {
    const silent = view({ reporting: [] });
    const ts = silent.targetSets[0]!;
    silent.targetSets = [
      {
        ...ts,
        totals: { rxBytes: null, rejected: null, ...none },
        rates: [],
        servers: ts.servers.map((s) => ({ ...s, txBytes: null, rates: [] })),
      },
    ];
    installFakeApi({ measurements: silent });
    renderApp('/measurements');
    expect(await screen.findByText('No IPFE reports measurements now')).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Measurements of Target Set 1' });
    for (const row of within(table).getAllByRole('row').slice(1))
      expect(row).toHaveTextContent(/not counted\s*not counted$/);
    expect(screen.queryAllByRole('img')).toHaveLength(0);
  });
});
