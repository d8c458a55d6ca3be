import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithRouter } from '@/testing/render';
import { FieldMessage } from './field-row';

describe('a field message that names a menu trail', () => {
  it('links the page it names, keeping the words', () => {
    const error =
      'Required: the Target Set has a secondary address, and application server mp4 has no second address: add one under Network › Application Servers';
    renderWithRouter(<FieldMessage id="f" error={error} />);
    expect(screen.getByText(/^Required:/)).toHaveTextContent(error);
    expect(screen.getByRole('link', { name: 'Network › Application Servers' })).toHaveAttribute(
      'href',
      '/app-servers',
    );
  });

  it('leaves a message without one as it is', () => {
    renderWithRouter(<FieldMessage id="f" error="Weighting must be a whole number" />);
    expect(screen.queryByRole('link')).toBeNull();
  });
});
