import { join } from 'node:path';
import { ARTIFACTS, credentialsOf } from '../support/env';
import { expect, logIn, test } from '../support/fixtures';

// A session of its own: logging it out must not end the one the other flows share.
test.use({ storageState: { cookies: [], origins: [] } });

test('an operator logged out in another tab logs in again and finds their typing on the Edit page', async ({
  page,
  api,
}) => {
  const lab = await api.lab(22);
  const [mp1, mp2] = lab.servers;
  const ts = await lab.targetSet({
    family: 'ipv4',
    primary: { address: lab.tsa4 },
    servers: [{ address: mp1!.v4 }, { address: mp2!.v4 }],
  });
  const operator = credentialsOf('operator');
  const edit = `/target-sets/${ts.number}/edit`;
  await page.goto(edit);
  await logIn(page, operator.name, operator.password);
  await expect(page.getByRole('heading', { name: 'Target Sets [Edit]' })).toBeVisible();
  await page.getByLabel('Description, row 1').fill('primary site');
  await page.getByLabel('Delete Age (s)').fill('900');

  // Another tab of the same browser logs out.
  const tab = await page.context().newPage();
  await tab.goto('/target-sets');
  await tab.getByRole('button', { name: 'Log out' }).click();
  await expect(tab).toHaveURL(/\/login$/);
  await tab.close();

  // This tab finds out at its next request, and asks for a login.
  await expect(page.getByText('Log in to continue (your session may have expired).')).toBeVisible();
  await logIn(page, operator.name, operator.password);
  await expect(page).toHaveURL(new RegExp(`${edit}$`));
  await expect(page.getByLabel('Description, row 1')).toHaveValue('primary site');
  await expect(page.getByLabel('Delete Age (s)')).toHaveValue('900');
  const notice = page.getByRole('status').filter({ hasText: 'Your unsaved changes were kept' });
  await expect(notice).toContainText('Your session ended before you saved');
  await expect(notice.getByRole('row', { name: /^Delete Age/ }).getByRole('cell')).toHaveText([
    '600',
    '900',
    '900 (yours)',
  ]);
  await page.screenshot({ path: join(ARTIFACTS, 'target-sets-edit-typing-kept.png') });

  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText(`Target Set ${ts.number} saved as revision`)).toBeVisible();
  const saved = (await api.get(`/api/target-sets/${ts.number}`)).body;
  expect(saved.deleteAgeSeconds).toBe(900);
  expect((saved.servers as { description: string }[])[0]!.description).toBe('primary site');

  // Saved: nothing is put back when the page is opened again.
  await page.goto(edit);
  await expect(page.getByLabel('Delete Age (s)')).toHaveValue('900');
  await expect(page.getByText('Your unsaved changes were kept')).toHaveCount(0);
});
