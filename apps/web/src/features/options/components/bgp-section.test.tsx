import { optionsSchema } from '@ipfe/schema';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { options } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import { OptionsForm, placeOptionsIssue } from './options-form';

/** The PUTs the form sends, answered as the API would (the body parsed by the schema). */
function stubApi(answer?: (body: unknown) => Response) {
  const sent: Record<string, unknown>[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init: RequestInit = {}) => {
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      sent.push(body);
      if (answer) return answer(body);
      return new Response(JSON.stringify(optionsSchema.parse(body)), {
        status: 200,
        headers: { 'content-type': 'application/json', etag: '"o2"', 'x-ipfe-revision': '8' },
      });
    }),
  );
  return sent;
}

afterEach(() => vi.unstubAllGlobals());

const renderOptions = (o = options) =>
  renderWithRouter(
    <OptionsForm options={o} etag='"o"' readOnly={false} lockedSlots={{}} onReload={vi.fn()} />,
  );

const bgp = () => screen.getByRole('region', { name: 'BGP' });

describe('Options › BGP (decision 018)', () => {
  it('is off by default, showing only the switch', () => {
    renderOptions();
    expect(within(bgp()).getByLabelText('Announce over BGP')).not.toBeChecked();
    expect(within(bgp()).queryByLabelText(/BGP ASN/)).toBeNull();
  });

  it('saves the ASN, the peers and the BFD timers typed, and sends null once off', async () => {
    const sent = stubApi();
    const { user } = renderOptions();
    await user.click(within(bgp()).getByLabelText('Announce over BGP'));
    expect(within(bgp()).getByLabelText(/BFD interval/)).toHaveValue(50);
    expect(within(bgp()).getByLabelText(/BFD multiplier/)).toHaveValue(3);
    await user.type(within(bgp()).getByLabelText(/BGP ASN/), '65010');
    await user.type(within(bgp()).getByLabelText('BGP peer 1 address'), '10.0.0.254');
    await user.type(within(bgp()).getByLabelText('BGP peer 1 ASN'), '65000');
    await user.click(within(bgp()).getByRole('button', { name: 'Add peer' }));
    await user.type(within(bgp()).getByLabelText('BGP peer 2 address'), '10.0.0.253');
    await user.type(within(bgp()).getByLabelText('BGP peer 2 ASN'), '65000');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText(/Options saved/)).toBeInTheDocument();
    expect(sent[0]!.bgp).toEqual({
      asn: 65010,
      peers: [
        { address: '10.0.0.254', asn: 65000 },
        { address: '10.0.0.253', asn: 65000 },
      ],
      bfdIntervalMs: 50,
      bfdMultiplier: 3,
    });
    await user.click(within(bgp()).getByLabelText('Announce over BGP'));
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]!.bgp).toBeNull();
  });

  it('shows the schema’s error beside the field the operator left, and saves nothing', async () => {
    const sent = stubApi();
    const { user } = renderOptions();
    await user.click(within(bgp()).getByLabelText('Announce over BGP'));
    const interval = within(bgp()).getByLabelText(/BFD interval/);
    await user.clear(interval);
    await user.type(interval, '10');
    await user.tab();
    expect(
      within(bgp()).getByText('BFD interval (ms) must be a whole number from 50 to 1000'),
    ).toBeInTheDocument();
    const peer = within(bgp()).getByLabelText('BGP peer 1 address');
    await user.type(peer, 'router');
    await user.tab();
    expect(peer).toHaveAccessibleDescription('BGP peer address must be an IPv4 or IPv6 address');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(sent).toHaveLength(0);
  });

  it('shows a saved BGP section as it is, and places the API’s BGP paths on its fields', () => {
    renderOptions(
      optionsSchema.parse({
        ...options,
        bgp: { asn: 4200000000, peers: [{ address: '2001:db8::1', asn: 65000 }] },
      }),
    );
    expect(within(bgp()).getByLabelText('Announce over BGP')).toBeChecked();
    expect(within(bgp()).getByLabelText(/BGP ASN/)).toHaveValue(4200000000);
    expect(within(bgp()).getByLabelText('BGP peer 1 address')).toHaveValue('2001:db8::1');
    expect(within(bgp()).queryByRole('button', { name: /Remove BGP peer/ })).toBeNull();
    expect(placeOptionsIssue('bgp.peers.1.asn')).toBe('bgp.peers.1.asn');
    expect(placeOptionsIssue('bgp.peers')).toBe('bgp.peers.root');
    expect(placeOptionsIssue('bgp')).toBe('bgp.enabled');
  });
});
