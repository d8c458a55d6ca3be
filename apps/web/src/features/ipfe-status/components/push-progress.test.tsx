import { act, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { noteCommit, resetCommits } from '@/lib/commits';
import { installFakeApi } from '@/testing/fake-api';
import { ipfeSlot, ipfeView } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import { progressOf, PushProgress } from './push-progress';

afterEach(() => {
  vi.unstubAllGlobals();
  act(() => resetCommits());
});

const panel = () => screen.getByRole('status', { name: 'Push progress' });
const ipfeList = () => within(panel()).getByRole('list', { name: /IPFEs receiving revision 13/ });

describe('PushProgress', () => {
  it('is empty until a change commits a revision', () => {
    installFakeApi();
    renderWithRouter(<PushProgress />);
    expect(panel()).toBeEmptyDOMElement();
  });

  it('follows the committed revision from pending to synced on every configured IPFE', async () => {
    const api = installFakeApi({
      ipfe: ipfeView({
        A1: { state: 'pending', desiredRevision: 13 },
        A2: { state: 'pending', desiredRevision: 13 },
      }),
    });
    renderWithRouter(<PushProgress />);
    act(() => noteCommit(13));
    expect(await within(panel()).findByText('Push of revision 13')).toBeInTheDocument();
    expect(await within(panel()).findByText(/Waiting for 2 of 2 IPFEs/)).toBeInTheDocument();
    expect(
      within(ipfeList())
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['IPFE-A1 pending', 'IPFE-A2 pending']);
    // A1 acknowledges first, then A2.
    api.state.ipfe = ipfeView({
      A1: { appliedRevision: 13, desiredRevision: 13 },
      A2: { state: 'pending', desiredRevision: 13 },
    });
    expect(
      await within(panel()).findByText(/Waiting for 1 of 2 IPFEs/, {}, { timeout: 3000 }),
    ).toBeInTheDocument();
    expect(ipfeList()).toHaveTextContent('IPFE-A1 synced');
    api.state.ipfe = ipfeView({
      A1: { appliedRevision: 13, desiredRevision: 13 },
      A2: { appliedRevision: 13, desiredRevision: 13 },
    });
    expect(
      await within(panel()).findByText(
        /Every configured IPFE runs revision 13 \(2\/2\)/,
        {},
        { timeout: 3000 },
      ),
    ).toBeInTheDocument();
  });

  it('stops at a rejection and shows the agent’s message, while the other IPFE stays synced', async () => {
    installFakeApi({
      ipfe: ipfeView({
        A1: {
          state: 'rejected',
          desiredRevision: 13,
          rejected: { revision: 13, error: 'The agent refused the deployment token' },
        },
        A2: { appliedRevision: 13, desiredRevision: 13 },
      }),
    });
    renderWithRouter(<PushProgress />);
    act(() => noteCommit(13));
    expect(
      await within(panel()).findByText(/IPFE A1 rejected revision 13; it keeps running/),
    ).toBeInTheDocument();
    const items = within(ipfeList()).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('IPFE-A1 rejectedThe agent refused the deployment token');
    expect(items[1]).toHaveTextContent('IPFE-A2 synced');
    expect(within(panel()).getByRole('link', { name: 'Open the Status page' })).toHaveAttribute(
      'href',
      '/status',
    );
  });

  it('says the revision is applied but a Target Set is served by nobody, in red', async () => {
    installFakeApi({
      ipfe: ipfeView(
        {
          A1: { appliedRevision: 13, desiredRevision: 13 },
          A2: { appliedRevision: 13, desiredRevision: 13 },
        },
        [{ targetSet: 2, tsa: '192.168.10.102', reason: 'no IPFE holds 192.168.10.102' }],
      ),
    });
    renderWithRouter(<PushProgress />);
    act(() => noteCommit(13));
    expect(
      await within(panel()).findByText(
        /2\/2 applied revision 13 · Target Set 2 not served \(192\.168\.10\.102: no IPFE holds/,
      ),
    ).toBeInTheDocument();
    expect(within(panel()).queryByText(/Every configured IPFE runs/)).not.toBeInTheDocument();
    expect(panel().querySelector('.push-card')).toHaveClass('push-error');
  });

  it('can be dismissed', async () => {
    installFakeApi();
    const { user } = renderWithRouter(<PushProgress />);
    act(() => noteCommit(13));
    await user.click(await screen.findByRole('button', { name: 'Dismiss push progress' }));
    expect(panel()).toBeEmptyDOMElement();
  });

  it('counts a later revision applied as an acknowledgement, and an older rejection as none', () => {
    expect(progressOf(ipfeSlot('A1', { appliedRevision: 14 }), 13).phase).toBe('acknowledged');
    expect(
      progressOf(
        ipfeSlot('A1', {
          state: 'pending',
          rejected: { revision: 12, error: 'x' },
          appliedRevision: 11,
        }),
        13,
      ).phase,
    ).toBe('pending');
    expect(
      progressOf(
        ipfeSlot('A1', { state: 'unreachable', lastError: 'ETIMEDOUT', appliedRevision: 12 }),
        13,
      ),
    ).toEqual({ slot: 'A1', phase: 'unreachable', message: 'ETIMEDOUT' });
  });
});
