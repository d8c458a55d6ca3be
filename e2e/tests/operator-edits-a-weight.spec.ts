import { join } from 'node:path';
import { ARTIFACTS, authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('an operator edits a weight and sees the chance of selection change', async ({
  page,
  api,
}) => {
  const lab = await api.lab(3);
  const [mp1, mp2] = lab.servers;
  const ts = await lab.targetSet({
    family: 'ipv4',
    primary: { address: lab.tsa4 },
    servers: [{ address: mp1!.v4 }, { address: mp2!.v4 }],
  });

  await page.goto('/target-sets');
  const list = page.getByRole('table', { name: `IP list of Target Set ${ts.number}` });
  await expect(
    list.getByRole('row', { name: new RegExp(mp2!.v4.replace(/\./g, '\\.')) }),
  ).toContainText('50.0 %');

  await page.getByRole('radio', { name: `Select Target Set ${ts.number}` }).check();
  await page.getByRole('button', { name: 'Edit' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [Edit]' })).toBeVisible();
  await expect(page.getByLabel('TS Number')).toHaveValue(String(ts.number));
  await expect(page.getByLabel('Chance of selection, row 2')).toHaveText('50.0 %');

  await page.getByLabel('Weighting, row 2').fill('300');
  // Live, before anything is saved.
  await expect(page.getByLabel('Chance of selection, row 1')).toHaveText('25.0 %');
  await expect(page.getByLabel('Chance of selection, row 2')).toHaveText('75.0 %');
  await expect(
    page.getByRole('img', { name: /Share of new connections per server/ }),
  ).toHaveAccessibleName(/75\.0 %/);
  await page.screenshot({ path: join(ARTIFACTS, 'target-sets-edit.png'), fullPage: true });

  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText(/Target Set \d+ saved as revision \d+\./)).toBeVisible();
  // Apply stays on the page, with the saved values.
  await expect(page.getByRole('heading', { name: 'Target Sets [Edit]' })).toBeVisible();
  await expect(page.getByLabel('Weighting, row 2')).toHaveValue('300');

  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [View]' })).toBeVisible();
  await expect(
    list.getByRole('row', { name: new RegExp(mp2!.v4.replace(/\./g, '\\.')) }),
  ).toContainText(/300.*75\.0 %/);
});
