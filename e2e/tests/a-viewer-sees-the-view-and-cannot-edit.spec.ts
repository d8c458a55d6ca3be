import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('viewer') });

test('a viewer sees the View and cannot edit', async ({ page, api }) => {
  const lab = await api.lab(6);
  const ts = await lab.targetSet({
    family: 'ipv4',
    primary: { address: lab.tsa4 },
    servers: [{ address: lab.servers[0]!.v4 }],
  });

  await page.goto('/target-sets');
  await expect(page.getByRole('banner')).toContainText('vera');
  await expect(page.getByRole('banner').getByLabel('role viewer')).toBeVisible();
  await expect(
    page.getByRole('table', { name: `IP list of Target Set ${ts.number}` }),
  ).toContainText(lab.servers[0]!.v4);
  await expect(page.getByRole('link', { name: /Insert/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^(Edit|Delete)$/ })).toHaveCount(0);
  await expect(page.getByRole('radio')).toHaveCount(0);

  // Reading includes the export of the config document.
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export (JSON document)' }).click();
  expect((await download).suggestedFilename()).toMatch(/^ipfe-config-r\d+\.json$/);
  const csv = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export (source bulk file)' }).click();
  expect((await csv).suggestedFilename()).toMatch(/\.csv$/);

  // The other pages are read-only too.
  await page.getByRole('link', { name: 'Application Servers' }).click();
  await expect(page.getByRole('cell', { name: lab.servers[0]!.name })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Insert' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Options' }).click();
  await expect(page.getByLabel('IPFE A1 address')).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Apply' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Revisions' }).click();
  await expect(page.getByRole('button', { name: /Roll back/ })).toHaveCount(0);
  // Exporting is reading; importing is not offered.
  await expect(page.getByRole('link', { name: 'Export (source bulk file)' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Import', exact: true })).toHaveCount(0);

  // An edit URL typed by hand.
  await page.goto(`/target-sets/${ts.number}/edit`);
  await expect(page.getByRole('heading', { name: 'Not permitted' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'OK' })).toHaveCount(0);
  await page.goto('/target-sets/insert?family=ipv4');
  await expect(page.getByRole('heading', { name: 'Not permitted' })).toBeVisible();
  await page.goto('/import');
  await expect(page.getByRole('heading', { name: 'Not permitted' })).toBeVisible();
  await expect(page.getByLabel('File to import')).toHaveCount(0);
});
