import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { removeDrafts } from '@/lib/drafts';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp } from '@/testing/render';

async function logIn(user: ReturnType<typeof renderApp>['user'], name: string) {
  await user.type(await screen.findByLabelText('User name'), name);
  await user.type(screen.getByLabelText('Password'), 'secret123');
  await user.click(screen.getByRole('button', { name: 'Log in' }));
}

const cells = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((c) => c.textContent);

/** What the shell's live polls do every few seconds: ask the API again. */
const poll = (queryClient: ReturnType<typeof renderApp>['queryClient']) =>
  queryClient.refetchQueries({ type: 'active' });

beforeEach(() => removeDrafts());

describe('typing on an Edit page when the session ends', () => {
  it('is back in the form after the operator logs in again, and says so', async () => {
    const api = installFakeApi();
    const { user, router, queryClient } = renderApp('/target-sets/1/edit');
    const description = await screen.findByLabelText('Description, row 1');
    await user.clear(description);
    await user.type(description, 'primary site');
    await user.clear(screen.getByLabelText('Delete Age (s)'));
    await user.type(screen.getByLabelText('Delete Age (s)'), '900');

    // Logged out in another tab: the next request of this one is refused.
    api.expireSession();
    await poll(queryClient);
    expect(await screen.findByText(/your session may have expired/)).toBeInTheDocument();
    expect(router.state.location.search).toBe('?next=%2Ftarget-sets%2F1%2Fedit');

    await logIn(user, 'olga');
    expect(await screen.findByLabelText('Description, row 1')).toHaveValue('primary site');
    expect(screen.getByLabelText('Delete Age (s)')).toHaveValue(900);
    const notice = screen
      .getAllByRole('status')
      .find((s) => s.textContent?.startsWith('Your unsaved changes were kept'))!;
    expect(notice).toHaveTextContent(
      'Your session ended before you saved; what you had typed is back in the form, not saved yet.',
    );
    const table = within(notice).getByRole('table', { name: 'Changes, field by field' });
    expect(cells(within(table).getByRole('row', { name: /^Description, row 1/ }))).toEqual([
      'first',
      'primary site',
      'primary site (yours)',
    ]);
    expect(cells(within(table).getByRole('row', { name: /^Delete Age/ }))).toEqual([
      '600',
      '900',
      '900 (yours)',
    ]);

    // Discarding gives the saved version back, and nothing comes back after that.
    await user.click(within(notice).getByRole('button', { name: 'Discard my changes' }));
    expect(screen.getByLabelText('Description, row 1')).toHaveValue('first');
    expect(screen.getByLabelText('Delete Age (s)')).toHaveValue(600);
  });

  it('is not kept when the operator logs out on purpose', async () => {
    installFakeApi();
    const { user, router } = renderApp('/options');
    const timeout = await screen.findByLabelText('Connect timeout (s)');
    await user.clear(timeout);
    await user.type(timeout, '7');
    await user.click(screen.getByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    await logIn(user, 'olga');
    await screen.findByRole('heading', { name: 'Target Sets [View]' });
    await router.navigate('/options');
    expect(await screen.findByLabelText('Connect timeout (s)')).toHaveValue(3);
    expect(screen.queryByText('Your unsaved changes were kept')).not.toBeInTheDocument();
  });

  it('is not given to someone else who logs in on the same tab', async () => {
    const api = installFakeApi();
    const { user, queryClient } = renderApp('/options');
    const timeout = await screen.findByLabelText('Connect timeout (s)');
    await user.clear(timeout);
    await user.type(timeout, '7');
    api.expireSession();
    await poll(queryClient);
    await logIn(user, 'vera');
    expect(await screen.findByLabelText('Connect timeout (s)')).toHaveValue(3);
    expect(screen.queryByText('Your unsaved changes were kept')).not.toBeInTheDocument();
  });
});
