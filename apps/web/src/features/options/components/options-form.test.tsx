import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { MESSAGES } from '@ipfe/schema';
import { options } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import { OptionsForm, placeOptionsIssue, toOptionsBody, toFormValues } from './options-form';

/** The form with the fixture's options, editable, with the IPFE slots locked as given. */
const renderForm = (lockedSlots: Record<string, number[]> = {}) =>
  renderWithRouter(
    <OptionsForm
      options={options}
      etag='"o"'
      readOnly={false}
      lockedSlots={lockedSlots}
      onReload={vi.fn()}
    />,
  );

describe('OptionsForm', () => {
  it('shows the IPFE slots and the global options in the source sections', () => {
    renderForm();
    expect(screen.getByLabelText('IPFE A1 address')).toHaveValue('10.0.0.1');
    expect(screen.getByLabelText('IPFE B1 address')).toHaveValue('');
    for (const name of [
      'IPFE Addresses',
      'Inter-IPFE Synchronization',
      'Traffic Forwarding',
      'Application Server Monitoring',
      'Packet Counting',
      'Global Packet Rate Limit',
    ]) {
      expect(screen.getByRole('region', { name })).toBeInTheDocument();
    }
    expect(screen.getByLabelText(/Forwarded ports/)).toHaveValue('3868');
    expect(screen.getByRole('radio', { name: 'Heartbeat' })).toBeChecked();
  });

  it('offers the reject choices of the source, the rate limit, the imbalance minimum and accounting, labelled and with their help', () => {
    renderForm();
    const tcp = screen.getByRole('combobox', { name: 'TCP reject option' });
    expect(tcp).toHaveValue('tcpReset');
    expect([...tcp.querySelectorAll('option')].map((o) => o.textContent)).toEqual([
      'TCP reset',
      'Drop',
      'ICMP host unreachable (ICMPv6: address unreachable)',
      'ICMP port unreachable (ICMPv6: port unreachable)',
      'ICMP administratively prohibited (ICMPv6: administratively prohibited)',
    ]);
    expect(tcp).toHaveAccessibleDescription(
      /ICMP choices: the kernel and direct paths send them.*user-space path cannot send ICMP/,
    );
    const sctp = screen.getByRole('combobox', { name: 'SCTP reject option' });
    expect(sctp).toHaveAccessibleDescription(/answers it with the ICMP chosen/);
    expect(sctp).toHaveValue('drop');
    expect([...sctp.querySelectorAll('option')].map((o) => o.value)).toEqual([
      'drop',
      'icmpHostUnreachable',
      'icmpPortUnreachable',
      'icmpAdminProhibited',
    ]);
    const limit = screen.getByRole('spinbutton', {
      name: 'Global packet rate limit (packets/s per port)',
    });
    expect(limit).toHaveValue(500000);
    expect(limit).toHaveAccessibleDescription(/Enforced by the kernel and direct paths/);
    expect(
      screen.getByRole('spinbutton', {
        name: 'Imbalance detection throughput minimum (packets/s)',
      }),
    ).toHaveValue(20000);
    const accounting = screen.getByRole('checkbox', { name: 'Accounting' });
    expect(accounting).toBeChecked();
    expect(accounting).toHaveAccessibleDescription(/packet and byte measurements stop/);
  });

  it('saves the new options as chosen, and refuses a rate limit out of range', async () => {
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) =>
      Response.json(JSON.parse(String(init.body)), {
        headers: { etag: '"o2"', 'x-ipfe-revision': '5' },
      }),
    );
    vi.stubGlobal('fetch', fetchMock);
    const { user } = renderForm();
    const limit = screen.getByRole('spinbutton', {
      name: 'Global packet rate limit (packets/s per port)',
    });
    await user.clear(limit);
    await user.type(limit, '999');
    await user.tab();
    expect(
      screen.getByText(
        'Global packet rate limit (packets/s per port) must be a whole number from 1000 to 10000000',
      ),
    ).toBeInTheDocument();
    await user.clear(limit);
    await user.type(limit, '250000');
    await user.selectOptions(
      screen.getByRole('combobox', { name: 'SCTP reject option' }),
      'ICMP port unreachable (ICMPv6: port unreachable)',
    );
    screen.getByRole('checkbox', { name: 'Accounting' }).focus();
    await user.keyboard(' ');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(fetchMock).toHaveBeenCalled();
    const body = JSON.parse(String(fetchMock.mock.calls.at(-1)![1].body));
    expect(body).toMatchObject({
      packetRateLimitPps: 250000,
      sctpRejectOption: 'icmpPortUnreachable',
      accounting: false,
      tcpRejectOption: 'tcpReset',
      imbalanceMinPps: 20000,
    });
    vi.unstubAllGlobals();
  });

  it('makes the address of an IPFE that a Target Set uses read-only, and says why', () => {
    renderForm({ A1: [1, 4] });
    const a1 = screen.getByLabelText('IPFE A1 address');
    expect(a1).toHaveAttribute('readonly');
    expect(a1).toHaveAccessibleDescription(
      `${MESSAGES.readOnly}: Target Set 1, 4 are served through this IPFE`,
    );
    expect(screen.getByLabelText('IPFE A2 address')).not.toHaveAttribute('readonly');
  });

  it('checks fields as the schema does when the operator leaves them', async () => {
    const { user } = renderForm();
    const ports = screen.getByLabelText(/Forwarded ports/);
    await user.clear(ports);
    await user.type(ports, '3868, 3868');
    await user.tab();
    expect(screen.getByText('Forwarded port 3868 is listed twice')).toBeInTheDocument();
    const timeout = screen.getByLabelText(/Connect timeout/);
    await user.clear(timeout);
    await user.type(timeout, '1');
    await user.tab();
    expect(
      screen.getByText(`Connect timeout: ${MESSAGES.connectTimeoutTooShort}`),
    ).toBeInTheDocument();
  });

  it('turns the form into the API body: empty address = not configured, ports as a list', () => {
    const values = toFormValues(options);
    values.forwardedPorts = '3868 3869,3870';
    values.ipfe.A2.address = ' ';
    const body = toOptionsBody(values);
    expect(body.forwardedPorts).toEqual([3868, 3869, 3870]);
    expect(body.ipfe).toMatchObject({ A1: { address: '10.0.0.1' }, A2: null, B1: null, B2: null });
    expect(placeOptionsIssue('forwardedPorts.1')).toBe('forwardedPorts');
    expect(placeOptionsIssue('ipfe.B2.address')).toBe('ipfe.B2.address');
    expect(placeOptionsIssue('nonsense')).toBeNull();
    expect(placeOptionsIssue('mateTimeoutMs')).toBe('mateTimeoutMs');
    expect(placeOptionsIssue('imbalanceThresholdPct')).toBe('imbalanceThresholdPct');
    expect(placeOptionsIssue('ipfe.A2')).toBe('ipfe.A2.address');
  });
});
