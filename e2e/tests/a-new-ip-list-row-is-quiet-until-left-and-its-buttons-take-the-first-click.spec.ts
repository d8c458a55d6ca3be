import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('a new IP list row shows no error until it is left, and Add server and Remove take the first click', async ({
  page,
  api,
}) => {
  const lab = await api.lab(42);
  const [mp1, mp2] = lab.servers;
  await page.goto('/target-sets/insert?family=ipv4');
  const list = page.getByRole('region', { name: 'Target Set IP List' });
  await page.getByLabel('IP Address, row 1', { exact: true }).selectOption(mp1!.v4);

  await page.getByRole('button', { name: 'Add server' }).click();
  const row2 = page.getByLabel('IP Address, row 2', { exact: true });
  await expect(row2).toBeFocused();
  await expect(row2).not.toHaveAttribute('aria-invalid', 'true');
  await expect(list.getByText('IP Address must be an IPv4 or IPv6 address')).toHaveCount(0);

  // Row 2 left empty by pressing Add server: its message must not move the button away.
  await page.getByRole('button', { name: 'Add server' }).click();
  await expect(page.getByLabel('IP Address, row 3', { exact: true })).toBeFocused();
  await expect(row2).toHaveAttribute('aria-invalid', 'true');
  await page.getByRole('button', { name: 'Remove row 3' }).click();
  await expect(page.getByLabel('IP Address, row 3', { exact: true })).toHaveCount(0);

  // Choosing an address clears the row's message at once, before the pull-down is left.
  await row2.selectOption(mp2!.v4);
  await expect(row2).not.toHaveAttribute('aria-invalid', 'true');
  await expect(list.getByText('IP Address must be an IPv4 or IPv6 address')).toHaveCount(0);
  await page.getByRole('button', { name: 'Add server' }).click();
  await expect(page.getByLabel('IP Address, row 3', { exact: true })).toBeFocused();
});
