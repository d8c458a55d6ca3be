import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp } from '@/testing/render';

afterEach(() => vi.unstubAllGlobals());

describe('the Menu button of a narrow window', () => {
  it('opens and closes the menu it controls, by click or keyboard, and closes when a page is chosen', async () => {
    installFakeApi();
    const { user, router } = renderApp('/target-sets');
    const toggle = await screen.findByRole('button', { name: 'Menu' });
    const menu = screen.getByRole('navigation', { name: 'Main menu' });
    expect(toggle).toHaveAttribute('aria-controls', menu.id);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');

    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await user.keyboard('{Escape}');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(toggle).toHaveFocus();

    await user.keyboard('{Enter}');
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await user.click(within(menu).getByRole('link', { name: 'Alarms' }));
    expect(await screen.findByRole('heading', { name: 'Alarms', level: 1 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/alarms');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
  });
});
