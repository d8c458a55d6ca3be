import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('the secondary address pull-down shows what will be saved', async ({ page, api }) => {
  const lab = await api.lab(41);
  // A server with two IPv4 addresses, for an IPv4 Target Set with an IPv4 secondary address.
  await api.post('/api/app-servers', { name: 's41-mp4', addresses: ['10.41.1.14', '10.41.1.24'] });

  await page.goto('/target-sets');
  await page.getByRole('link', { name: 'Insert IPv4' }).click();
  const primary = page.getByRole('region', { name: 'Primary Public IP Address' });
  await primary.getByLabel('Address', { exact: true }).fill(lab.tsa4);
  await page.getByLabel('Secondary Address', { exact: true }).fill('10.41.1.184');
  await page.getByLabel('IP Address, row 1', { exact: true }).selectOption('10.41.1.14');

  // The server's only other IPv4 address is chosen, and the pull-down says so.
  const secondary = page.getByLabel('Secondary IP Address, row 1', { exact: true });
  await expect(secondary).toHaveValue('10.41.1.24');
  await expect(secondary.locator('option:checked')).toHaveText('10.41.1.24');
  const list = page.getByRole('region', { name: 'Target Set IP List' });
  await expect(list.getByText(/Required/)).toHaveCount(0);

  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText(/Target Set (\d+) saved as revision \d+\./)).toBeVisible();
  const number = /\/target-sets\/(\d+)\/edit$/.exec(page.url())![1]!;
  api.track(`/api/target-sets/${number}`);
  const saved = await api.get(`/api/target-sets/${number}`);
  expect(saved.body.servers).toEqual([
    expect.objectContaining({ address: '10.41.1.14', secondaryAddress: '10.41.1.24' }),
  ]);
  // The Edit page shows the saved value the same way.
  await expect(secondary.locator('option:checked')).toHaveText('10.41.1.24');

  // IPv6 with an IPv4 secondary address: the server's IPv4 address shows, with no error.
  await page.goto('/target-sets/insert?family=ipv6');
  await primary.getByLabel('Address', { exact: true }).fill(lab.tsa6);
  await page.getByLabel('Secondary Address', { exact: true }).fill('10.41.1.186');
  const mp1 = lab.servers[0]!;
  await page.getByLabel('IP Address, row 1', { exact: true }).selectOption(mp1.v6);
  await expect(secondary).toHaveValue(mp1.v4);
  await expect(secondary.locator('option:checked')).toHaveText(mp1.v4);
  await expect(secondary).not.toHaveAttribute('aria-invalid', 'true');
  await expect(list.getByText(/Required/)).toHaveCount(0);

  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText(/Target Set (\d+) saved as revision \d+\./)).toBeVisible();
  const number6 = /\/target-sets\/(\d+)\/edit$/.exec(page.url())![1]!;
  api.track(`/api/target-sets/${number6}`);
  const saved6 = await api.get(`/api/target-sets/${number6}`);
  expect(saved6.body.servers).toEqual([
    expect.objectContaining({ address: mp1.v6, secondaryAddress: mp1.v4 }),
  ]);
});
