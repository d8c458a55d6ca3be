import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

describe('a revision page', () => {
  it('offers no Download or Changes for a revision that does not exist', async () => {
    installFakeApi();
    renderApp('/revisions/999');
    expect(await screen.findByText('Revision 999 does not exist')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Download' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Changes' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'All revisions' })).toHaveAttribute(
      'href',
      '/revisions',
    );
  });
});
