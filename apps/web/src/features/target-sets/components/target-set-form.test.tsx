import { MESSAGES, optionsSchema, type TargetSet } from '@ipfe/schema';
import { act, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError, type Versioned } from '@/lib/api-client';
import { appServers, context, targetSet1, targetSetView } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import type { TargetSetView } from '../api/get-target-sets';
import type { TargetSetContext } from './form-model';
import { TargetSetForm, type TargetSetFormProps } from './target-set-form';

function saved(
  body: TargetSet,
  warnings: TargetSetView['warnings'] = [],
): Versioned<TargetSetView> {
  return { data: { ...targetSetView(body), warnings }, etag: '"e2"', revision: 7 };
}

function renderForm(props: Partial<TargetSetFormProps> & { ctx?: TargetSetContext } = {}) {
  const save = vi.fn(async (body: TargetSet) => saved(body));
  const onDone = vi.fn();
  const onReload = vi.fn();
  const onInserted = vi.fn();
  const view = renderWithRouter(
    <TargetSetForm
      context={props.ctx ?? context()}
      family="ipv4"
      targetSet={null}
      save={save}
      onDone={onDone}
      onInserted={onInserted}
      onReload={onReload}
      {...props}
    />,
  );
  return { ...view, save: (props.save ?? save) as typeof save, onDone, onReload, onInserted };
}

const section = (name: string) => screen.getByRole('region', { name });
const ipList = () => section('Target Set IP List');
const row = (n: number) => within(ipList()).getAllByRole('row')[n]!;

/** Puts the form in a state the API would accept: a TSA and one server. */
async function fillValid(user: ReturnType<typeof renderForm>['user']) {
  await user.type(screen.getByLabelText(/^\*?Address$/), '192.168.10.200');
  await user.selectOptions(screen.getByLabelText('IP Address, row 1'), '192.168.10.13');
}

describe('TargetSetForm (Insert)', () => {
  it('pre-fills the defaults of the source page', () => {
    renderForm();
    const number = screen.getByLabelText(/TS Number/) as HTMLSelectElement;
    // Target Set 1 exists: the pull-down offers the unused numbers, the lowest first.
    expect(number.value).toBe('2');
    expect(within(number).queryByRole('option', { name: '1' })).toBeNull();
    expect(within(number).getAllByRole('option')).toHaveLength(31);
    expect(screen.getByRole('radio', { name: 'Both TCP and SCTP' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'Least Load' })).toBeChecked();
    expect(screen.getByLabelText(/Delete Age/)).toHaveValue(600);
    expect(screen.getByLabelText(/MPS Factor/)).toHaveValue(50);
    expect(screen.getByLabelText(/Connection Count Factor/)).toHaveValue(50);
    expect(screen.getByLabelText(/Allowed Deviation/)).toHaveValue(5);
    expect(screen.getByLabelText('Peer Node Aware Least Load')).toBeChecked();
    expect(screen.getByLabelText(/Peer Node Group Distribution Threshold/)).toHaveValue(1);
    expect(screen.getByLabelText('Disable')).not.toBeChecked();
    expect(screen.getByLabelText('Initiator Connection Support')).not.toBeChecked();
    expect(screen.getByLabelText('Weighting, row 1')).toHaveValue(100);
    expect(screen.getByLabelText('Address family')).toHaveValue('IPv4');
  });

  it('pre-selects the first configured slot as Active IPFE', () => {
    const options = optionsSchema.parse({
      ipfe: { B1: { address: '10.0.0.3' }, B2: { address: '10.0.0.4' } },
    });
    renderForm({ ctx: context({ options, targetSets: [] }) });
    const primary = section('Primary Public IP Address');
    expect(within(primary).getByRole('radio', { name: 'IPFE-B1' })).toBeChecked();
    expect(within(primary).getByLabelText('Preferred Standby')).toHaveValue('IPFE-B2');
    expect((screen.getByLabelText(/TS Number/) as HTMLSelectElement).value).toBe('1');
  });

  it('shows a field error when the operator leaves the field, worded as the schema words it', async () => {
    const { user } = renderForm();
    const address = screen.getByLabelText(/^\*?Address$/);
    await user.type(address, '10.0.0.300');
    expect(screen.queryByText('Address must be an IPv4 or IPv6 address')).toBeNull();
    await user.tab();
    expect(screen.getByText('Address must be an IPv4 or IPv6 address')).toBeInTheDocument();
    expect(address).toHaveAttribute('aria-invalid', 'true');
    expect(address).toHaveAccessibleDescription(/Address must be an IPv4 or IPv6 address/);

    const deleteAge = screen.getByLabelText(/Delete Age/);
    await user.clear(deleteAge);
    await user.type(deleteAge, '5');
    await user.tab();
    expect(
      screen.getByText('Delete Age (s) must be a whole number from 10 to 3110400'),
    ).toBeInTheDocument();
  });

  it('refuses an address of the wrong family, and one off the XSI networks', async () => {
    const { user } = renderForm();
    const address = screen.getByLabelText(/^\*?Address$/);
    await user.type(address, 'fd00::100');
    await user.tab();
    expect(
      screen.getByText('fd00::100 is not an IPv4 address (this is an IPv4 Target Set)'),
    ).toBeInTheDocument();
    await user.clear(address);
    await user.type(address, '172.16.0.1');
    expect(screen.getByText(`172.16.0.1 ${MESSAGES.notOnXsi}`)).toBeInTheDocument();
  });

  it('disables, but does not hide, the Least Load section when the algorithm is Hash', async () => {
    const { user } = renderForm();
    const mps = screen.getByLabelText(/MPS Factor/);
    expect(mps).toBeEnabled();
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    expect(mps).toBeVisible();
    expect(mps).toBeDisabled();
    expect(screen.getByLabelText('Peer Node Aware Least Load')).toBeDisabled();
    expect(
      within(section('Least Load Parameters')).getByText('Not used by the Hash algorithm'),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('radio', { name: 'Least Load' }));
    expect(mps).toBeEnabled();
  });

  it('disables the radios of unconfigured IPFEs with the hint, and the standby follows the active', async () => {
    const { user } = renderForm();
    const primary = section('Primary Public IP Address');
    const b1 = within(primary).getByRole('radio', { name: 'IPFE-B1' });
    expect(b1).toBeDisabled();
    expect(b1).toHaveAccessibleDescription(new RegExp(MESSAGES.configureIpfe));
    expect(within(primary).getByRole('radio', { name: 'IPFE-A1' })).toBeChecked();
    const standby = within(primary).getByLabelText('Preferred Standby');
    expect(standby).toHaveAttribute('readonly');
    expect(standby).toHaveValue('IPFE-A2');
    await user.click(within(primary).getByRole('radio', { name: 'IPFE-A2' }));
    expect(standby).toHaveValue('IPFE-A1');
  });

  it('shows the normalized Fm / Fc live', async () => {
    const { user } = renderForm();
    const mps = screen.getByLabelText(/MPS Factor/);
    expect(screen.getByText('will be saved as 50 / 50')).toBeInTheDocument();
    await user.clear(mps);
    await user.type(mps, '1');
    const fc = screen.getByLabelText(/Connection Count Factor/);
    await user.clear(fc);
    await user.type(fc, '2');
    expect(screen.getByText('will be saved as 33 / 67')).toBeInTheDocument();
    await user.clear(mps);
    await user.type(mps, '0');
    await user.clear(fc);
    await user.type(fc, '0');
    await user.tab();
    expect(screen.getByText(MESSAGES.factorsBothZero)).toBeInTheDocument();
  });

  it('warns, without refusing, when Delete Age goes below 600', async () => {
    const { user, save } = renderForm();
    const deleteAge = screen.getByLabelText(/Delete Age/);
    await user.clear(deleteAge);
    await user.type(deleteAge, '300');
    expect(screen.getByText(MESSAGES.deleteAgeInadvisable)).toBeInTheDocument();
    expect(deleteAge).toHaveAccessibleDescription(
      new RegExp(MESSAGES.deleteAgeInadvisable.slice(0, 20)),
    );
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(save).toHaveBeenCalledTimes(1);
  });

  it('shows only the range error for a Delete Age below the range, not also the warning', async () => {
    const { user } = renderForm();
    const deleteAge = screen.getByLabelText(/Delete Age/);
    await user.clear(deleteAge);
    await user.type(deleteAge, '5');
    await user.tab();
    expect(deleteAge).toHaveAccessibleDescription(/Delete Age.* must be a whole number from 10/);
    expect(screen.queryByText(MESSAGES.deleteAgeInadvisable)).toBeNull();
  });

  it('says, on an IPv6 Insert with no IPv6 server, that an IPv6 XSI network comes first', () => {
    const ipv4Only = appServers.map((s) => ({ ...s, addresses: [s.addresses[0]!] }));
    renderForm({ family: 'ipv6', ctx: context({ appServers: ipv4Only, targetSets: [] }) });
    const note = screen.getByText(/No application server has an IPv6 address yet/);
    expect(note).toHaveTextContent(
      'First an IPv6 XSI network under Network › XSI Networks, then servers with IPv6 addresses on it under Network › Application Servers.',
    );
    expect(within(note).getByRole('link', { name: 'Network › XSI Networks' })).toHaveAttribute(
      'href',
      '/xsi-networks',
    );
  });

  it('lists only unused application server addresses of the family, and adds and removes rows', async () => {
    const { user } = renderForm();
    const first = screen.getByLabelText('IP Address, row 1');
    const choices = () =>
      within(
        screen.getByLabelText(`IP Address, row ${within(ipList()).getAllByRole('row').length - 1}`),
      )
        .getAllByRole('option')
        .map((o) => o.getAttribute('value'))
        .filter(Boolean);
    expect(choices()).toEqual(['192.168.10.11', '192.168.10.12', '192.168.10.13', '192.168.10.14']);
    await user.selectOptions(first, '192.168.10.12');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    const second = screen.getByLabelText('IP Address, row 2');
    expect(choices()).toEqual(['192.168.10.11', '192.168.10.13', '192.168.10.14']);
    expect(second).toHaveFocus();
    expect(screen.getByLabelText('Weighting, row 2')).toHaveValue(100);
    await user.selectOptions(second, '192.168.10.13');
    await user.click(screen.getByRole('button', { name: 'Remove row 1 (192.168.10.12)' }));
    expect(screen.queryByLabelText('IP Address, row 2')).toBeNull();
    expect(screen.getByLabelText('IP Address, row 1')).toHaveValue('192.168.10.13');
    // The last row cannot be removed: a Target Set needs a server.
    expect(screen.getByRole('button', { name: /Remove row 1/ })).toBeDisabled();
  });

  it('offers the same server’s other address as secondary, only once a secondary TSA is set', async () => {
    const { user } = renderForm({ family: 'ipv6' });
    const row1 = screen.getByLabelText('IP Address, row 1');
    expect(
      within(row1)
        .getAllByRole('option')
        .map((o) => o.getAttribute('value'))
        .filter(Boolean),
    ).toEqual(['fd00::11', 'fd00::12', 'fd00::13']);
    await user.selectOptions(row1, 'fd00::12');
    const secondary = screen.getByLabelText('Secondary IP Address, row 1');
    expect(secondary).toBeDisabled();
    expect(
      within(section('Secondary Public IP Address')).getByRole('radio', { name: 'IPFE-A2' }),
    ).toBeDisabled();
    await user.type(screen.getByLabelText('Secondary Address'), '192.168.10.201');
    expect(secondary).toBeEnabled();
    // The server's only other address is filled in; it is the only choice.
    expect(secondary).toHaveValue('192.168.10.12');
    expect(
      within(secondary)
        .getAllByRole('option')
        .map((o) => o.getAttribute('value'))
        .filter(Boolean),
    ).toEqual(['192.168.10.12']);
    // The secondary's Active IPFE complements the primary's.
    expect(
      within(section('Secondary Public IP Address')).getByRole('radio', { name: 'IPFE-A2' }),
    ).toBeChecked();
  });

  it('shows each row’s port range and chance of selection, live, and a bar per server', async () => {
    const { user } = renderForm();
    await user.selectOptions(screen.getByLabelText('IP Address, row 1'), '192.168.10.13');
    expect(screen.getByLabelText('Initiator Port Range, row 1')).toHaveTextContent('17408–17919');
    expect(screen.getByLabelText('Chance of selection, row 1')).toHaveTextContent('100.0 %');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.selectOptions(screen.getByLabelText('IP Address, row 2'), '192.168.10.14');
    expect(screen.getByLabelText('Chance of selection, row 1')).toHaveTextContent('50.0 %');
    const weight = screen.getByLabelText('Weighting, row 2');
    await user.clear(weight);
    await user.type(weight, '300');
    // The chances follow the typed weight in the frame after its paint.
    await waitFor(() =>
      expect(screen.getByLabelText('Chance of selection, row 1')).toHaveTextContent('25.0 %'),
    );
    expect(screen.getByLabelText('Chance of selection, row 2')).toHaveTextContent('75.0 %');
    const chart = screen.getByRole('img', { name: /Share of new connections per server/ });
    expect(chart).toHaveAccessibleName(
      /192\.168\.10\.13 \(mp3\): 25\.0 %; 192\.168\.10\.14 \(mp4\): 75\.0 %/,
    );
    expect(row(2)).toHaveTextContent('17920–18431');
  });

  it('keeps every row’s chance, the chart and the rows’ errors right as weights are typed and a row is removed', async () => {
    const { user } = renderForm();
    await user.selectOptions(screen.getByLabelText('IP Address, row 1'), '192.168.10.13');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.selectOptions(screen.getByLabelText('IP Address, row 2'), '192.168.10.14');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.selectOptions(screen.getByLabelText('IP Address, row 3'), '192.168.10.11');
    // Row 2 left once, then typed: its error shows as typed, the others' chances follow.
    const weight = screen.getByLabelText('Weighting, row 2');
    await user.click(weight);
    await user.tab();
    await user.clear(weight);
    await user.type(weight, '70000');
    expect(
      await screen.findByText(/Weighting must be a whole number from 0 to 65535/),
    ).toBeVisible();
    await user.clear(weight);
    await user.type(weight, '200');
    await waitFor(() =>
      expect(screen.queryByText(/Weighting must be a whole number/)).not.toBeInTheDocument(),
    );
    await waitFor(() =>
      expect(screen.getByLabelText('Chance of selection, row 1')).toHaveTextContent('25.0 %'),
    );
    expect(screen.getByLabelText('Chance of selection, row 2')).toHaveTextContent('50.0 %');
    expect(screen.getByLabelText('Chance of selection, row 3')).toHaveTextContent('25.0 %');
    await user.click(screen.getByRole('button', { name: 'Remove row 1 (192.168.10.13)' }));
    expect(screen.getByLabelText('Weighting, row 1')).toHaveValue(200);
    expect(screen.getByLabelText('Chance of selection, row 1')).toHaveTextContent('66.7 %');
    expect(screen.getByLabelText('Chance of selection, row 2')).toHaveTextContent('33.3 %');
    expect(screen.queryByLabelText('Chance of selection, row 3')).toBeNull();
    expect(
      screen.getByRole('img', { name: /Share of new connections per server/ }),
    ).toHaveAccessibleName(/192\.168\.10\.14 \(mp4\): 66\.7 %; 192\.168\.10\.11 \(mp1\): 33\.3 %$/);
  });

  it('refuses an IP list that partly overlaps another Target Set’s', async () => {
    const { user, save } = renderForm();
    await user.type(screen.getByLabelText(/^\*?Address$/), '192.168.10.200');
    await user.selectOptions(screen.getByLabelText('IP Address, row 1'), '192.168.10.11');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.selectOptions(screen.getByLabelText('IP Address, row 2'), '192.168.10.13');
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(
      await screen.findByText(
        /The IP list partly overlaps the IP list of Target Set 1 \(shared: 192\.168\.10\.11\)/,
      ),
    ).toBeInTheDocument();
    expect(save).not.toHaveBeenCalled();
  });

  it('saves the body the API takes, and OK goes back with the outcome', async () => {
    const { user, save, onDone } = renderForm();
    await fillValid(user);
    await user.type(screen.getByLabelText('Description, row 1'), 'rack 3');
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(save).toHaveBeenCalledTimes(1);
    const body = save.mock.calls[0]![0];
    expect(body).toMatchObject({
      number: 2,
      family: 'ipv4',
      algorithm: 'leastLoad',
      primary: { address: '192.168.10.200', activeIpfe: 'A1' },
      secondary: null,
      servers: [
        { address: '192.168.10.13', secondaryAddress: null, description: 'rack 3', weight: 100 },
      ],
    });
    expect(onDone).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'saved', message: 'Target Set 2 saved as revision 7.' }),
    );
  });

  it('puts the server’s errors beside their fields, by path', async () => {
    const save = vi.fn(async () => {
      throw new ApiError(400, 'VALIDATION', 'refused', [
        { path: 'primary.address', message: '192.168.10.200 is already used by Target Set 9' },
        { path: 'servers.0.weight', message: 'Weighting is not what the server wants' },
        { path: 'servers', message: 'List problem from the server' },
      ]);
    });
    const { user } = renderForm({ save });
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    const address = screen.getByLabelText(/^\*?Address$/);
    expect(address).toHaveAccessibleDescription(
      /192\.168\.10\.200 is already used by Target Set 9/,
    );
    expect(screen.getByLabelText('Weighting, row 1')).toHaveAccessibleDescription(
      /Weighting is not what the server wants/,
    );
    expect(within(ipList()).getByText('List problem from the server')).toBeInTheDocument();
    expect(screen.getByText(/the server found 3 problems/)).toBeInTheDocument();
  });

  it('shows the server’s warnings beside their fields after Apply', async () => {
    const save = vi.fn(async (body: TargetSet) =>
      saved(body, [{ path: 'secondary.activeIpfe', message: MESSAGES.secondaryShouldComplement }]),
    );
    const { user, onInserted } = renderForm({ save });
    await fillValid(user);
    const deleteAge = screen.getByLabelText(/Delete Age/);
    await user.clear(deleteAge);
    await user.type(deleteAge, '100');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('Target Set 2 saved as revision 7.')).toBeInTheDocument();
    expect(screen.getByText(`Warning: ${MESSAGES.secondaryShouldComplement}`)).toBeInTheDocument();
    const secondaryActive = within(section('Secondary Public IP Address')).getByRole('radiogroup', {
      name: 'Active IPFE for secondary address',
    });
    expect(secondaryActive).toHaveAccessibleDescription(
      new RegExp(MESSAGES.secondaryShouldComplement),
    );
    expect(screen.getByLabelText(/Delete Age/)).toHaveAccessibleDescription(
      new RegExp(MESSAGES.deleteAgeInadvisable.slice(0, 30)),
    );
    expect(onInserted).toHaveBeenCalledWith(2, expect.objectContaining({ kind: 'saved' }));
  });
});

describe('TargetSetForm (Edit)', () => {
  it('shows the Target Set, with its number and family read-only', () => {
    renderForm({ targetSet: targetSet1, ctx: context({ editing: 1 }) });
    expect(screen.getByLabelText('TS Number')).toHaveValue('1');
    expect(screen.getByLabelText('TS Number')).toHaveAttribute('readonly');
    expect(screen.getByLabelText(/^\*?Address$/)).toHaveValue('192.168.10.100');
    expect(screen.getByLabelText('IP Address, row 2')).toHaveValue('192.168.10.12');
    expect(screen.getByLabelText('Chance of selection, row 1')).toHaveTextContent('66.7 %');
  });

  it('says so when someone else saved first, overwrites nothing, and loads their version', async () => {
    const save = vi.fn(async () => {
      throw new ApiError(412, 'PRECONDITION_FAILED', 'Someone else changed this item', [], {
        current: targetSet1,
      });
    });
    const { user, onReload } = renderForm({
      targetSet: targetSet1,
      ctx: context({ editing: 1 }),
      save,
    });
    const weight = screen.getByLabelText('Weighting, row 2');
    await user.clear(weight);
    await user.type(weight, '70');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/Someone else saved Target Set 1 after you opened it/);
    expect(alert).toHaveTextContent(/nothing was overwritten/);
    // What the operator typed is still there.
    expect(weight).toHaveValue(70);
    // Their version is loaded at once, for the typing to go on top of it (SaveFeedback's tests).
    expect(onReload).toHaveBeenCalled();
  });
});

/** mp5 has two IPv4 addresses, for an IPv4 Target Set with an IPv4 secondary address. */
const multihomed = context({
  appServers: [
    ...appServers,
    {
      name: 'mp5',
      addresses: ['192.168.10.15', '192.168.10.25'],
      initiatorPortRange: { start: 18432, end: 18943 },
    },
  ],
});

/** The text a pull-down shows: its selected option's. */
const shownText = (select: HTMLElement) =>
  (select as HTMLSelectElement).selectedOptions[0]?.textContent ?? '';

describe('TargetSetForm: a control shows what will be saved', () => {
  it('shows the secondary address it fills in when the row’s address is chosen after the Secondary Address (IPv4)', async () => {
    const { user, save } = renderForm({ ctx: multihomed });
    await user.type(screen.getByLabelText(/^\*?Address$/), '192.168.10.200');
    await user.type(screen.getByLabelText('Secondary Address'), '192.168.10.184');
    await user.selectOptions(screen.getByLabelText('IP Address, row 1'), '192.168.10.15');
    const secondary = screen.getByLabelText('Secondary IP Address, row 1');
    expect(secondary).toHaveValue('192.168.10.25');
    expect(shownText(secondary)).toBe('192.168.10.25');
    await user.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    expect(save.mock.calls[0]![0].servers).toEqual([
      expect.objectContaining({ address: '192.168.10.15', secondaryAddress: '192.168.10.25' }),
    ]);
  });

  it('shows the secondary address it fills in, with no error, on an IPv6 Target Set', async () => {
    const { user, save } = renderForm({ family: 'ipv6' });
    await user.type(screen.getByLabelText(/^\*?Address$/), 'fd00::200');
    await user.type(screen.getByLabelText('Secondary Address'), '192.168.10.201');
    await user.selectOptions(screen.getByLabelText('IP Address, row 1'), 'fd00::12');
    const secondary = screen.getByLabelText('Secondary IP Address, row 1');
    expect(shownText(secondary)).toBe('192.168.10.12');
    expect(secondary).not.toHaveAttribute('aria-invalid');
    expect(within(row(1)).queryByText(/Required/)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    expect(save.mock.calls[0]![0].servers[0]).toMatchObject({
      address: 'fd00::12',
      secondaryAddress: '192.168.10.12',
    });
  });

  it('shows None, and sends none, in a row whose Target Set has no Secondary Address', async () => {
    const { user, save } = renderForm({ ctx: multihomed });
    await user.type(screen.getByLabelText(/^\*?Address$/), '192.168.10.200');
    const tsa = screen.getByLabelText('Secondary Address');
    await user.type(tsa, '192.168.10.184');
    await user.selectOptions(screen.getByLabelText('IP Address, row 1'), '192.168.10.15');
    await user.clear(tsa);
    const secondary = screen.getByLabelText('Secondary IP Address, row 1');
    expect(secondary).toBeDisabled();
    expect(shownText(secondary)).toBe('None');
    await user.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    expect(save.mock.calls[0]![0].servers[0]).toMatchObject({ secondaryAddress: null });
  });

  it('keeps the chosen TS Number offered, or shows and saves the lowest unused one when another client took it', async () => {
    const save = vi.fn(async (body: TargetSet) => saved(body));
    let setContext: (ctx: TargetSetContext) => void = () => undefined;
    function WithContext() {
      const [ctx, set] = useState(context());
      setContext = set;
      return (
        <TargetSetForm
          context={ctx}
          family="ipv4"
          targetSet={null}
          save={save}
          onDone={vi.fn()}
          onInserted={vi.fn()}
          onReload={vi.fn()}
        />
      );
    }
    const { user } = renderWithRouter(<WithContext />);
    await fillValid(user);
    const number = screen.getByLabelText(/TS Number/);
    expect(number).toHaveValue('2');
    const taken = targetSetView({
      number: 2,
      family: 'ipv4',
      primary: { address: '192.168.10.102' },
      servers: [{ address: '192.168.10.14' }],
    });
    // The Target Sets read again (after a 409): Target Set 2 is someone else's now.
    act(() => setContext(context({ targetSets: [targetSet1, taken] })));
    expect(within(number).queryByRole('option', { name: '2' })).toBeNull();
    expect(number).toHaveValue('3');
    expect(shownText(number)).toBe('3');
    expect(number).toHaveAccessibleDescription(/Target Set 2 was inserted by someone else/);
    await user.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    expect(save.mock.calls[0]![0].number).toBe(3);
  });
});

describe('TargetSetForm: a new IP List row', () => {
  it('shows no error on a new empty row, nor on any row, after Add server', async () => {
    const { user } = renderForm();
    await user.selectOptions(screen.getByLabelText('IP Address, row 1'), '192.168.10.13');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    const second = screen.getByLabelText('IP Address, row 2');
    expect(second).not.toHaveAttribute('aria-invalid');
    expect(within(ipList()).queryByText(/must be an IPv4 or IPv6 address/)).toBeNull();
    await user.selectOptions(second, '192.168.10.14');
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    expect(screen.getByLabelText('IP Address, row 3')).toHaveFocus();
    expect(within(ipList()).queryByRole('paragraph')).toBeNull();
    expect(within(ipList()).queryByText(/must be an IPv4 or IPv6 address/)).toBeNull();
  });

  it('clears a row’s error as soon as a valid address is chosen, before the pull-down is left', async () => {
    const { user } = renderForm();
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    const second = screen.getByLabelText('IP Address, row 2');
    expect(second).toHaveAccessibleDescription(/IP Address must be an IPv4 or IPv6 address/);
    await user.selectOptions(second, '192.168.10.14');
    expect(second).toHaveFocus();
    expect(second).not.toHaveAttribute('aria-invalid');
    expect(within(ipList()).queryByText(/must be an IPv4 or IPv6 address/)).toBeNull();
  });

  it('clears an error that another field’s change put on an untouched field, as that field is typed', async () => {
    // Saved with Hash and Fm 0 / Fc 0, which Hash keeps as typed.
    const hash = targetSetView({
      number: 1,
      family: 'ipv4',
      algorithm: 'hash',
      leastLoad: { mpsFactor: 0, connectionCountFactor: 0 },
      primary: { address: '192.168.10.100' },
      servers: [{ address: '192.168.10.11' }, { address: '192.168.10.12' }],
    });
    const { user } = renderForm({
      targetSet: hash,
      ctx: context({ targetSets: [hash], editing: 1 }),
    });
    const mps = screen.getByLabelText(/MPS Factor/);
    expect(mps).toBeDisabled();
    await user.click(screen.getByRole('radio', { name: 'Least Load' }));
    expect(mps).toHaveAccessibleDescription(new RegExp(MESSAGES.factorsBothZero));
    await user.click(mps);
    await user.keyboard('{Backspace}5');
    expect(mps).toHaveFocus();
    expect(mps).not.toHaveAttribute('aria-invalid');
    expect(screen.queryByText(MESSAGES.factorsBothZero)).toBeNull();
  });
});

describe('TargetSetForm: the Least Load factors with Hash', () => {
  it('lets OK save Fm 0 / Fc 0 with Hash, as typed, and says so on the greyed-out fields', async () => {
    const { user, save } = renderForm();
    await fillValid(user);
    const mps = screen.getByLabelText(/MPS Factor/);
    const fc = screen.getByLabelText(/Connection Count Factor/);
    await user.clear(mps);
    await user.type(mps, '0');
    await user.clear(fc);
    await user.type(fc, '0');
    await user.tab();
    expect(mps).toHaveAccessibleDescription(new RegExp(MESSAGES.factorsBothZero));
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    expect(mps).toBeDisabled();
    expect(mps).not.toHaveAttribute('aria-invalid');
    expect(screen.queryByText(MESSAGES.factorsBothZero)).toBeNull();
    expect(screen.getByText('will be saved as 0 / 0')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    expect(save.mock.calls[0]![0]).toMatchObject({
      algorithm: 'hash',
      leastLoad: { mpsFactor: 0, connectionCountFactor: 0 },
    });
  });

  it('says Fm 0 / Fc 0 again when Least Load is chosen once more', async () => {
    const { user } = renderForm();
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    await user.click(screen.getByRole('radio', { name: 'Least Load' }));
    const mps = screen.getByLabelText(/MPS Factor/);
    const fc = screen.getByLabelText(/Connection Count Factor/);
    await user.clear(mps);
    await user.type(mps, '0');
    await user.clear(fc);
    await user.type(fc, '0');
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    expect(screen.queryByText(MESSAGES.factorsBothZero)).toBeNull();
    await user.click(screen.getByRole('radio', { name: 'Least Load' }));
    expect(mps).toHaveAccessibleDescription(new RegExp(MESSAGES.factorsBothZero));
    expect(screen.getByLabelText('Saved as (Fm / Fc)')).toHaveTextContent('—');
  });

  it('keeps a Least Load field that is out of range editable with Hash, so its error can be corrected', async () => {
    const { user } = renderForm();
    const mps = screen.getByLabelText(/MPS Factor/);
    await user.clear(mps);
    await user.type(mps, '150');
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    expect(mps).toHaveAccessibleDescription(/MPS Factor must be a whole number from 0 to 100/);
    expect(mps).toBeEnabled();
    await user.clear(mps);
    await user.type(mps, '15');
    expect(mps).toHaveValue(15);
    expect(mps).not.toHaveAttribute('aria-invalid');
    expect(mps).toBeEnabled();
    await user.click(screen.getByRole('radio', { name: 'Least Load' }));
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    expect(mps).toBeDisabled();
  });
});

describe('TargetSetForm: a refused save', () => {
  it('moves focus to the first field the server refused, in page order', async () => {
    const save = vi.fn(async () => {
      throw new ApiError(409, 'CONFLICT', 'Target Set 2 already exists', [
        { path: 'servers.0.weight', message: 'Weighting is not what the server wants' },
        { path: 'number', message: 'Target Set 2 already exists' },
      ]);
    });
    const { user } = renderForm({ save });
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'OK' }));
    const number = await screen.findByLabelText(/TS Number/);
    expect(number).toHaveAccessibleDescription(/Target Set 2 already exists/);
    // The focus moves once the save has ended, which may be a render after the message shows.
    await waitFor(() => expect(number).toHaveFocus());
  });

  it('moves focus there from the field Enter was pressed in, too', async () => {
    const save = vi.fn(async () => {
      throw new ApiError(409, 'CONFLICT', 'Target Set 2 already exists', [
        { path: 'number', message: 'Target Set 2 already exists' },
      ]);
    });
    const { user } = renderForm({ save });
    await fillValid(user);
    await user.type(screen.getByLabelText('Description, row 1'), 'rack 3{Enter}');
    await waitFor(() => expect(screen.getByLabelText(/TS Number/)).toHaveFocus());
  });
});

describe('TargetSetForm: the secondary address family', () => {
  it('says beside the Secondary Address why the rows have no secondary address to offer', async () => {
    const ipv4Only = context({ appServers: appServers.filter((s) => s.name === 'mp4') });
    const { user } = renderForm({ ctx: ipv4Only });
    await user.type(screen.getByLabelText(/^\*?Address$/), '192.168.10.200');
    const tsa = screen.getByLabelText('Secondary Address');
    await user.type(tsa, 'fd00::301');
    await user.selectOptions(screen.getByLabelText('IP Address, row 1'), '192.168.10.14');
    expect(tsa).toHaveAccessibleDescription(
      /No listed application server has an IPv6 address to be its Secondary IP Address \(mp4\)/,
    );
    expect(tsa).toHaveAccessibleDescription(/mp4/);
    await user.clear(tsa);
    expect(tsa).not.toHaveAccessibleDescription(/No listed application server/);
    await user.type(tsa, '192.168.10.201');
    await user.tab();
    expect(tsa).toHaveAccessibleDescription(
      /No listed application server has a second IPv4 address to be its Secondary IP Address \(mp4\)/,
    );
  });
});
