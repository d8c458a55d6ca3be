import { screen, waitFor, within } from '@testing-library/react';
import type { TargetSetInput } from '@ipfe/schema';
import { describe, expect, it, vi } from 'vitest';
import { context, targetSetView } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import { TargetSetForm } from './target-set-form';

const input: TargetSetInput = {
  number: 1,
  family: 'ipv4',
  algorithm: 'hash',
  primary: { address: '192.168.10.100', activeIpfe: 'A1' },
  servers: [
    { address: '192.168.10.11' },
    { address: '192.168.10.12' },
    { address: '192.168.10.13' },
  ],
};
const hashTs = targetSetView(input);

/** The form, once its preview has the engine (fetched when the first preview opens). */
async function renderEdit(ts = hashTs) {
  const rendered = renderWithRouter(
    <TargetSetForm
      context={context({ targetSets: [ts], editing: ts.number })}
      family="ipv4"
      targetSet={ts}
      save={vi.fn()}
      onDone={vi.fn()}
      onInserted={vi.fn()}
      onReload={vi.fn()}
    />,
  );
  await waitFor(() =>
    expect(within(preview()).queryByText('Loading the forwarding engine…')).toBeNull(),
  );
  return rendered;
}

const preview = () => screen.getByRole('region', { name: 'Change preview' });
const shareRow = (address: string) =>
  within(within(preview()).getByRole('table')).getByRole('row', { name: new RegExp(address) });

describe('the change preview of the Target Set form', () => {
  // First in the file: later tests find the engine already loaded.
  it('says it is loading the forwarding engine until the engine has arrived', async () => {
    renderWithRouter(
      <TargetSetForm
        context={context({ targetSets: [hashTs], editing: hashTs.number })}
        family="ipv4"
        targetSet={hashTs}
        save={vi.fn()}
        onDone={vi.fn()}
        onInserted={vi.fn()}
        onReload={vi.fn()}
      />,
    );
    expect(within(preview()).getByRole('status')).toHaveTextContent(
      'Loading the forwarding engine…',
    );
    expect(await within(preview()).findByText('This change remaps no client.')).toBeInTheDocument();
  });

  it('says how many Hash clients an edit remaps, from the saved and edited Maglev tables', async () => {
    const { user } = await renderEdit();
    expect(within(preview()).getByText('This change remaps no client.')).toBeInTheDocument();
    expect(shareRow('192.168.10.13')).toHaveTextContent('33.3 %33.3 %—');

    await user.clear(screen.getByLabelText('Weighting, row 3'));
    await user.type(screen.getByLabelText('Weighting, row 3'), '0');
    expect(
      await within(preview()).findByText(/^This change remaps 3[34]\.\d % of clients\.$/),
    ).toBeInTheDocument();
    expect(shareRow('192.168.10.13')).toHaveTextContent('33.3 %0.0 %−33.3 pp');
    expect(shareRow('192.168.10.11')).toHaveTextContent('33.3 %50.0 %+16.7 pp');
  });

  it('shows a server added to the list and the clients it takes over', async () => {
    const two = targetSetView({
      ...input,
      servers: [{ address: '192.168.10.11' }, { address: '192.168.10.12' }],
    });
    const { user } = await renderEdit(two);
    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.selectOptions(screen.getByLabelText('IP Address, row 3'), '192.168.10.13');
    expect(
      await within(preview()).findByText(/^This change remaps 3[34]\.\d % of clients\.$/),
    ).toBeInTheDocument();
    expect(shareRow('192.168.10.13')).toHaveTextContent('added33.3 %');
  });

  it('for Least Load, shows the shares and says no client is pinned', async () => {
    await renderEdit(targetSetView({ ...input, algorithm: 'leastLoad' }));
    expect(
      within(preview()).getByText(/^Least Load keeps no client-to-server map/),
    ).toBeInTheDocument();
    expect(within(preview()).queryByText(/remaps/)).toBeNull();
  });

  it('waits for valid weights', async () => {
    const { user } = await renderEdit();
    await user.clear(screen.getByLabelText('Weighting, row 1'));
    await user.type(screen.getByLabelText('Weighting, row 1'), '70000');
    expect(
      await within(preview()).findByText('Fix the weights to see the preview.'),
    ).toBeInTheDocument();
  });
});
