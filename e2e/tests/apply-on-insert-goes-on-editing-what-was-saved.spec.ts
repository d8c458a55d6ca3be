import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('an operator who inserts an XSI network with Apply goes on editing it, told the revision it was saved as', async ({
  page,
  api,
}) => {
  await page.goto('/xsi-networks/insert');
  await page.getByLabel('Name').fill('e2e-apply');
  await page.getByLabel('Network (CIDR)').fill('10.77.1.0/24');
  api.track('/api/xsi-networks/e2e-apply');
  await page.getByRole('button', { name: 'Apply' }).click();

  await expect(page.getByRole('heading', { name: 'XSI Networks [Edit]' })).toBeVisible();
  await expect(page).toHaveURL(/\/xsi-networks\/e2e-apply\/edit$/);
  await expect(page.getByText(/^XSI network e2e-apply saved as revision \d+\.$/)).toBeVisible();
  await expect(page.getByLabel('Name')).toHaveValue('e2e-apply');
  await expect(page.getByLabel('Name')).toHaveAttribute('readonly', '');

  // The next save's answer replaces the message.
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText('Nothing to save: no change.')).toBeVisible();
  await expect(page.getByText(/saved as revision/)).toHaveCount(0);
});
