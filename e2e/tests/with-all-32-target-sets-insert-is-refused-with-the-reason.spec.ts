import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('with all 32 Target Set numbers in use, Insert is disabled with the reason, and the Insert page says so', async ({
  page,
  api,
}) => {
  const lab = await api.lab(44);
  const [mp1] = lab.servers;
  const { body } = await api.get('/api/target-sets');
  const used = new Set((body.items as { number: number }[]).map((t) => t.number));
  for (let number = 1; number <= 32; number++) {
    if (used.has(number)) continue;
    await lab.targetSet({
      number,
      family: 'ipv4',
      primary: { address: `10.44.1.${139 + number}` },
      servers: [{ address: mp1!.v4 }],
    });
  }

  await page.goto('/target-sets');
  const actions = page.getByRole('toolbar', { name: 'Target Set actions' });
  for (const name of ['Insert IPv4', 'Insert IPv6']) {
    const insert = actions.getByRole('button', { name });
    await expect(insert).toBeDisabled();
    await expect(insert).toHaveAccessibleDescription('All 32 Target Set numbers are in use.');
  }

  // The Insert address opened directly: the reason, no form, and never "NaN".
  await page.goto('/target-sets/insert?family=ipv4');
  await expect(page.getByText('All 32 Target Set numbers are in use.')).toBeVisible();
  await expect(page.getByLabel('TS Number')).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText('NaN');
  await page.getByRole('link', { name: 'Back to Target Sets' }).click();
  await expect(page).toHaveURL(/\/target-sets$/);
});
