import { optionsSchema } from '@ipfe/schema';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { options } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import { slotChoices, standbyText, unconfiguredNote } from './ipfe-slots';

describe('the IPFE choices of a Target Set', () => {
  it.each([
    ['A1', false, 'IPFE-A2'],
    ['A2', false, 'IPFE-A1'],
    ['B1', false, 'None (the mate of IPFE-B1 is not configured)'],
    ['', false, 'None'],
    ['A1', true, 'None (served active-active)'],
  ] as const)('names the Preferred Standby of %s (active-active %s): %s', (active, aa, text) => {
    expect(standbyText(options, active, aa)).toBe(text);
  });

  it('offers every IPFE, and only the configured ones can be chosen', () => {
    expect(slotChoices(['A1', 'B2'])).toEqual([
      { value: 'A1', label: 'IPFE-A1', disabled: false },
      { value: 'A2', label: 'IPFE-A2', disabled: true },
      { value: 'B1', label: 'IPFE-B1', disabled: true },
      { value: 'B2', label: 'IPFE-B2', disabled: false },
    ]);
  });

  it('says which IPFEs are not configured and links to Options, and nothing when all are', () => {
    expect(unconfiguredNote(['A1', 'A2', 'B1', 'B2'])).toBeUndefined();
    renderWithRouter(<p>{unconfiguredNote(['A1', 'A2'])}</p>);
    expect(screen.getByText(/IPFE-B1, IPFE-B2: not configured/)).toBeInTheDocument();
    expect(screen.getByRole('link')).toHaveAttribute('href', '/options');
    const none = optionsSchema.parse({});
    expect(standbyText(none, 'A1', false)).toBe('None (the mate of IPFE-A1 is not configured)');
  });
});
