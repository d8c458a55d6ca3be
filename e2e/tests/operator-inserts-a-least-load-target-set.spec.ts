import { join } from 'node:path';
import { ARTIFACTS, authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('an operator inserts a Least Load IPv4 Target Set and sees it in the View', async ({
  page,
  api,
}) => {
  const lab = await api.lab(2);
  const [mp1, mp2, mp3] = lab.servers;

  await page.goto('/target-sets');
  await page.getByRole('link', { name: 'Insert IPv4' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [Insert]' })).toBeVisible();

  // The source GUI's defaults.
  await expect(page.getByLabel('TS Number')).toHaveValue('1');
  await expect(page.getByRole('radio', { name: 'Both TCP and SCTP' })).toBeChecked();
  await expect(page.getByRole('radio', { name: 'Least Load' })).toBeChecked();
  await expect(page.getByLabel('Delete Age (s)')).toHaveValue('600');
  await expect(page.getByText('will be saved as 50 / 50')).toBeVisible();
  const primary = page.getByRole('region', { name: 'Primary Public IP Address' });
  await expect(primary.getByRole('radio', { name: 'IPFE-A1' })).toBeChecked();
  await expect(primary.getByRole('radio', { name: 'IPFE-B1' })).toBeDisabled();
  await expect(primary.getByLabel('Preferred Standby')).toHaveValue('IPFE-A2');

  await page.getByLabel('MPS Factor').fill('20');
  await page.getByLabel('Connection Count Factor').fill('40');
  await expect(page.getByText('will be saved as 33 / 67')).toBeVisible();
  await primary.getByLabel('Address', { exact: true }).fill(lab.tsa4);

  await page.getByLabel('IP Address, row 1', { exact: true }).selectOption(mp1!.v4);
  await page.getByLabel('Description, row 1').fill('rack 1');
  await page.getByRole('button', { name: 'Add server' }).click();
  await page.getByLabel('IP Address, row 2', { exact: true }).selectOption(mp2!.v4);
  await page.getByLabel('Weighting, row 2').fill('300');
  await page.getByRole('button', { name: 'Add server' }).click();
  await page.getByLabel('IP Address, row 3', { exact: true }).selectOption(mp3!.v4);
  await page.getByLabel('Weighting, row 3').fill('100');
  await expect(page.getByLabel('Chance of selection, row 2')).toHaveText('60.0 %');
  await expect(page.getByLabel('Initiator Port Range, row 3')).toHaveText(/^\d+–\d+$/);
  await page.screenshot({ path: join(ARTIFACTS, 'target-sets-insert.png'), fullPage: true });

  api.track('/api/target-sets/1');
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [View]' })).toBeVisible();
  await expect(page.getByText(/Target Set 1 saved as revision \d+\./)).toBeVisible();

  const list = page.getByRole('table', { name: 'IP list of Target Set 1' });
  await expect(list.getByRole('row')).toHaveCount(4);
  await expect(
    list.getByRole('row', { name: new RegExp(mp1!.v4.replace(/\./g, '\\.')) }),
  ).toContainText(/rack 1.*100.*20\.0 %/);
  await expect(
    list.getByRole('row', { name: new RegExp(mp2!.v4.replace(/\./g, '\\.')) }),
  ).toContainText(/300.*60\.0 %/);
  const main = page.getByRole('table', { name: /Target Sets, each with its IP list/ });
  await expect(main).toContainText(lab.tsa4);
  await expect(main).toContainText('Fm/Fc 33/67');
  await expect(main).toContainText('active IPFE-A1 · standby IPFE-A2');
  await page.screenshot({ path: join(ARTIFACTS, 'target-sets-view.png'), fullPage: true });
});
