import type { Page } from '@playwright/test';
import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test('the login page logs no error in the console before anyone logs in', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto('/target-sets');
  await expect(page.getByRole('button', { name: 'Log in' })).toBeVisible();
  await page.goto('/login');
  await expect(page.getByLabel('User name')).toBeVisible();
  expect(errors).toEqual([]);
});

/** The page's texts and controls that the push card lies over, where the window shows them now. */
async function coveredByTheCard(page: Page) {
  const card = await page.getByRole('status', { name: 'Push progress' }).boundingBox();
  expect(card).not.toBeNull();
  return page.evaluate((c) => {
    const found: string[] = [];
    const seen = 'main h1, main h2, main label, main .field-help, main input, main button, main a';
    for (const element of Array.from(document.querySelectorAll(seen))) {
      const box = element.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue;
      const overlaps =
        box.left < c.x + c.width && box.right > c.x && box.top < c.y + c.height && box.bottom > c.y;
      if (overlaps) found.push((element.textContent ?? '').trim().slice(0, 60));
    }
    return found;
  }, card!);
}

test.describe('after a save', () => {
  test.use({ storageState: authFile('operator') });

  test('the push card covers no help text or control, at the top of the page or scrolled to its end', async ({
    page,
    api,
  }) => {
    await api.ensureIpfe();
    const before = (await api.get('/api/options')).body.imbalanceThresholdPct as number;
    try {
      await page.goto('/options');
      await expect(page.getByRole('heading', { name: 'Options', level: 1 })).toBeVisible();
      await page
        .getByLabel('Imbalance threshold (%)')
        .fill(String(before === 100 ? 99 : before + 1));
      await page.getByRole('button', { name: 'Apply' }).click();
      const card = page.getByRole('status', { name: 'Push progress' });
      await expect(card).toContainText(/Push of revision \d+/);
      expect(await coveredByTheCard(page)).toEqual([]);
      await page.getByRole('button', { name: 'Apply' }).scrollIntoViewIfNeeded();
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await expect(page.getByText(/^A server whose share of new connections/)).toBeInViewport();
      if (await card.isVisible()) expect(await coveredByTheCard(page)).toEqual([]);
      // It still closes at once.
      await page.getByRole('button', { name: 'Dismiss push progress' }).click();
      await expect(card).toBeEmpty();
    } finally {
      await api.put('/api/options', (options) => ({ ...options, imbalanceThresholdPct: before }));
    }
  });
});
