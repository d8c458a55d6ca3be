import { MESSAGES, optionsSchema, type TargetSet } from '@ipfe/schema';
import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Versioned } from '@/lib/api-client';
import { context, targetSetView } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import type { TargetSetView } from '../api/get-target-sets';
import type { TargetSetContext } from './form-model';
import { TargetSetForm } from './target-set-form';

/** The message's own words: its menu trail is a link of its own. */
const BGP_MISSING = /^Active-Active needs BGP configured under/;

/** A1, A2 and B1 configured, B2 not, and BGP to one router. */
const options = optionsSchema.parse({
  ipfe: {
    A1: { address: '10.0.0.1' },
    A2: { address: '10.0.0.2' },
    B1: { address: '10.0.0.3' },
  },
  bgp: { asn: 65010, peers: [{ address: '10.0.0.254', asn: 65000 }] },
});

function renderForm(
  ctx: TargetSetContext = context({ options }),
  targetSet: TargetSetView | null = null,
) {
  const save = vi.fn(async (body: TargetSet): Promise<Versioned<TargetSetView>> => ({
    data: targetSetView(body, { options }),
    etag: '"e2"',
    revision: 7,
  }));
  const view = renderWithRouter(
    <TargetSetForm
      context={ctx}
      family="ipv4"
      targetSet={targetSet}
      save={save}
      onDone={vi.fn()}
      onInserted={vi.fn()}
      onReload={vi.fn()}
    />,
  );
  return { ...view, save };
}

const serving = () => screen.getByRole('region', { name: 'Serving' });
const ipfeGroup = () => screen.getByRole('group', { name: /Active-Active IPFEs/ });

async function fillValid(user: ReturnType<typeof renderForm>['user']) {
  await user.type(screen.getByLabelText(/^\*?Address$/), '192.168.10.200');
  await user.selectOptions(screen.getByLabelText('IP Address, row 1'), '192.168.10.13');
}

describe('TargetSetForm: Serving (decision 018)', () => {
  it('is Active/Standby by default, with no IPFE list', () => {
    renderForm();
    expect(within(serving()).getByRole('radio', { name: 'Active/Standby' })).toBeChecked();
    expect(screen.queryByRole('group', { name: /Active-Active IPFEs/ })).toBeNull();
  });

  it('offers the configured IPFEs as checkboxes for Active-Active, and greys out the Active IPFE fields', async () => {
    const { user } = renderForm();
    await user.click(within(serving()).getByRole('radio', { name: 'Active-Active' }));
    const group = ipfeGroup();
    expect(within(group).getByRole('checkbox', { name: 'IPFE-A1' })).toBeEnabled();
    expect(within(group).getByRole('checkbox', { name: 'IPFE-B1' })).toBeEnabled();
    expect(within(group).getByRole('checkbox', { name: 'IPFE-B2' })).toBeDisabled();
    const primary = screen.getByRole('region', { name: 'Primary Public IP Address' });
    expect(within(primary).getByRole('radio', { name: 'IPFE-A1' })).toBeDisabled();
    expect(within(primary).getByLabelText('Preferred Standby')).toHaveValue(
      'None (served active-active)',
    );
  });

  it('shows the Least Load refusal on the algorithm as Active-Active is chosen, and takes it back with Hash', async () => {
    const { user } = renderForm();
    await user.click(within(serving()).getByRole('radio', { name: 'Active-Active' }));
    expect(await screen.findByText(MESSAGES.leastLoadNotActiveActive)).toBeInTheDocument();
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    expect(screen.queryByText(MESSAGES.leastLoadNotActiveActive)).toBeNull();
  });

  it('is ticked with the keyboard and saves the ticked IPFEs in slot order', async () => {
    const { user, save } = renderForm();
    await fillValid(user);
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    await user.click(within(serving()).getByRole('radio', { name: 'Active-Active' }));
    const b1 = within(ipfeGroup()).getByRole('checkbox', { name: 'IPFE-B1' });
    b1.focus();
    await user.keyboard(' ');
    expect(b1).toBeChecked();
    await user.click(within(ipfeGroup()).getByRole('checkbox', { name: 'IPFE-A1' }));
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(save).toHaveBeenCalledTimes(1);
    expect(save.mock.calls[0]![0]).toMatchObject({
      algorithm: 'hash',
      serving: 'activeActive',
      activeActiveIpfes: ['A1', 'B1'],
    });
  });

  it('refuses one IPFE on its field, and sends no list once Active/Standby is chosen again', async () => {
    const { user, save } = renderForm();
    await fillValid(user);
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    await user.click(within(serving()).getByRole('radio', { name: 'Active-Active' }));
    await user.click(within(ipfeGroup()).getByRole('checkbox', { name: 'IPFE-A2' }));
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(save).not.toHaveBeenCalled();
    expect(within(serving()).getByText(MESSAGES.activeActiveIpfesTooFew)).toBeInTheDocument();
    await user.click(within(serving()).getByRole('radio', { name: 'Active/Standby' }));
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(save).toHaveBeenCalledTimes(1);
    const body = save.mock.calls[0]![0];
    expect(body.serving).toBe('activeStandby');
    expect(body).not.toHaveProperty('activeActiveIpfes');
  });

  it('says where BGP is missing, on Serving', async () => {
    const noBgp = optionsSchema.parse({ ipfe: options.ipfe });
    const { user, save } = renderForm(context({ options: noBgp }));
    await fillValid(user);
    await user.click(screen.getByRole('radio', { name: 'Hash' }));
    await user.click(within(serving()).getByRole('radio', { name: 'Active-Active' }));
    await user.click(within(ipfeGroup()).getByRole('checkbox', { name: 'IPFE-A1' }));
    await user.click(within(ipfeGroup()).getByRole('checkbox', { name: 'IPFE-A2' }));
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(save).not.toHaveBeenCalled();
    expect(within(serving()).getByText(BGP_MISSING)).toBeInTheDocument();
  });

  it('shows an active-active Target Set as saved on Edit', () => {
    const ts = targetSetView(
      {
        number: 1,
        family: 'ipv4',
        algorithm: 'hash',
        serving: 'activeActive',
        activeActiveIpfes: ['A2', 'B1'],
        primary: { address: '192.168.10.100' },
        servers: [{ address: '192.168.10.11' }],
      },
      { options },
    );
    renderForm(context({ options, targetSets: [ts], editing: 1 }), ts);
    expect(within(serving()).getByRole('radio', { name: 'Active-Active' })).toBeChecked();
    expect(within(ipfeGroup()).getByRole('checkbox', { name: 'IPFE-A2' })).toBeChecked();
    expect(within(ipfeGroup()).getByRole('checkbox', { name: 'IPFE-B1' })).toBeChecked();
    expect(within(ipfeGroup()).getByRole('checkbox', { name: 'IPFE-A1' })).not.toBeChecked();
  });
});
