import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('an operator inserts a Hash IPv6 Target Set, with the Least Load section disabled', async ({
  page,
  api,
}) => {
  const lab = await api.lab(4);
  const [mp1, mp2] = lab.servers;

  await page.goto('/target-sets');
  await page.getByRole('link', { name: 'Insert IPv6' }).click();
  await expect(page.getByLabel('Address family')).toHaveValue('IPv6');
  await page.getByRole('radio', { name: 'Hash' }).check();
  const leastLoad = page.getByRole('region', { name: 'Least Load Parameters' });
  await expect(leastLoad).toContainText('Not used by the Hash algorithm');
  await expect(leastLoad.getByLabel('MPS Factor')).toBeDisabled();
  await expect(leastLoad.getByLabel('Allowed Deviation')).toBeVisible();

  const primary = page.getByRole('region', { name: 'Primary Public IP Address' });
  await primary.getByLabel('Address', { exact: true }).fill(lab.tsa6);
  await primary.getByRole('radio', { name: 'IPFE-A2' }).check();
  await expect(primary.getByLabel('Preferred Standby')).toHaveValue('IPFE-A1');

  // Only the IPv6 addresses of the servers are offered.
  const row1 = page.getByLabel('IP Address, row 1', { exact: true });
  await expect(row1.locator('option')).toHaveText([
    'Choose an address…',
    `${mp1!.v6} (${mp1!.name})`,
    `${mp2!.v6} (${mp2!.name})`,
    `${lab.servers[2]!.v6} (${lab.servers[2]!.name})`,
  ]);
  await row1.selectOption(mp1!.v6);
  await page.getByRole('button', { name: 'Add server' }).click();
  await page.getByLabel('IP Address, row 2', { exact: true }).selectOption(mp2!.v6);

  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText(/Target Set (\d+) saved as revision \d+\./)).toBeVisible();
  // Apply on Insert: the Target Set now exists, and the page edits it.
  await expect(page).toHaveURL(/\/target-sets\/\d+\/edit$/);
  const number = /\/target-sets\/(\d+)\/edit$/.exec(page.url())![1]!;
  api.track(`/api/target-sets/${number}`);
  await expect(page.getByRole('heading', { name: 'Target Sets [Edit]' })).toBeVisible();

  await page.getByRole('button', { name: 'OK' }).click();
  const main = page.getByRole('table', { name: /Target Sets, each with its IP list/ });
  const group = main.getByRole('rowgroup').filter({ hasText: lab.tsa6 });
  await expect(group).toContainText('IPv6');
  await expect(group).toContainText('Hash');
  await expect(group).toContainText('active IPFE-A2 · standby IPFE-A1');
  await expect(page.getByRole('table', { name: `IP list of Target Set ${number}` })).toContainText(
    /fd00:4::11.*50\.0 %/,
  );
});
