import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { renderWithRouter } from '@/testing/render';
import { ListToolbar } from './list-toolbar';

describe('ListToolbar', () => {
  it('asks before deleting, and shows who still uses an item whose delete is refused', async () => {
    const onDelete = vi.fn(async () => {
      throw new ApiError(
        409,
        'IN_USE',
        'XSI network xsi1 is still used by application server mp1, Target Set 2',
      );
    });
    const { user } = renderWithRouter(
      <ListToolbar
        noun="XSI network"
        selected={{ key: 'xsi1', label: 'XSI network xsi1' }}
        insert={[{ to: '/x/insert', label: 'Insert' }]}
        editPath={(k) => `/x/${k}`}
        onDelete={onDelete}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete XSI network xsi1?' });
    expect(onDelete).not.toHaveBeenCalled();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(onDelete).toHaveBeenCalledWith('xsi1');
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'The delete was refused: XSI network xsi1 is still used by application server mp1, Target Set 2',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('keeps Edit and Delete disabled until a row is selected', () => {
    renderWithRouter(
      <ListToolbar
        noun="XSI network"
        selected={null}
        insert={[]}
        editPath={(k) => k}
        onDelete={vi.fn()}
      />,
    );
    expect(screen.getByRole('button', { name: 'Edit' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Delete' })).toBeDisabled();
  });
});
