import { authFile } from '../support/env';
import { expect, expectAccessible, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('an operator compares two revisions side by side and rolls back to the earlier one', async ({
  page,
  api,
}) => {
  // Two saves, a diff, a rollback and an axe scan: 33 s once on a loaded CI machine.
  test.setTimeout(60_000);
  const lab = await api.lab(8);
  const [mp1, mp2] = lab.servers;
  const ts = await lab.targetSet({
    family: 'ipv4',
    primary: { address: lab.tsa4 },
    deleteAgeSeconds: 900,
    servers: [{ address: mp1!.v4 }, { address: mp2!.v4 }],
  });
  const before = Number((await api.get('/api/revisions')).body.total);

  // A change through the GUI: Delete Age 900 → 1200.
  await page.goto(`/target-sets/${ts.number}/edit`);
  await page.getByLabel('Delete Age (s)').fill('1200');
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText(/saved as revision/)).toBeVisible();
  const changed = before + 1;

  await page
    .getByRole('navigation', { name: 'Main menu' })
    .getByRole('link', { name: 'Revisions' })
    .click();
  const log = page.getByRole('table', { name: /Configuration revisions/ });
  await expect(log.getByRole('row').nth(1)).toContainText(
    new RegExp(`${changed}.*olga.*Edit Target Set ${ts.number}`),
  );
  await expect(log).toContainText(`Insert Target Set ${ts.number}`);

  await page.getByLabel('From revision', { exact: true }).selectOption(String(before));
  await page.getByLabel('To revision', { exact: true }).selectOption(String(changed));
  await page.getByRole('button', { name: 'Compare' }).click();
  await expect(
    page.getByRole('heading', { name: `Compare revision ${before} with ${changed}` }),
  ).toBeVisible();
  const changes = page.getByRole('table', {
    name: `1 change from revision ${before} to revision ${changed}`,
  });
  await expect(changes.getByRole('row').nth(1)).toContainText(
    `targetSets.${ts.number}.deleteAgeSeconds`,
  );
  await expect(changes.getByRole('row').nth(1)).toContainText(/changed\s*900\s*1200/);
  const left = page.getByRole('region', { name: `Revision ${before}` });
  const right = page.getByRole('region', { name: `Revision ${changed}` });
  await expect(left.locator('[data-changed]')).toHaveText(
    ['  "deleteAgeSeconds": 900,'].map((t) => new RegExp(t.trim())),
  );
  await expect(right.locator('[data-changed]')).toHaveText([/"deleteAgeSeconds": 1200,/]);
  await expectAccessible(page, 'the revision diff');

  // After that change, an application server and a Target Set that the rollback takes away.
  const mp4 = { name: 's8-mp4', v4: '10.8.1.14', v6: 'fd00:8::14' };
  await api.post('/api/app-servers', { name: mp4.name, addresses: [mp4.v4, mp4.v6] });
  const later = await lab.targetSet({
    family: 'ipv4',
    primary: { address: '10.8.1.101' },
    servers: [{ address: mp4.v4 }],
  });
  const running = changed + 2;

  await page.getByRole('link', { name: 'All revisions' }).click();
  await page.getByRole('button', { name: `Roll back to revision ${before}` }).click();
  const dialog = page.getByRole('dialog', { name: `Roll back to revision ${before}?` });
  // Before it is confirmed, the dialog says what the rollback removes and what it changes back.
  const undone = dialog.getByRole('table', {
    name: `What the rollback to revision ${before} changes`,
  });
  await expect(dialog).toContainText('3 changes');
  await expect(
    undone.getByRole('row', { name: new RegExp(`^Removed Application server ${mp4.name} `) }),
  ).toBeVisible();
  await expect(
    undone.getByRole('row', { name: new RegExp(`^Removed Target Set ${later.number} `) }),
  ).toBeVisible();
  await expect(
    undone.getByRole('row', {
      name: `Changed Target Set ${ts.number} · Delete Age (s) 1200 900`,
    }),
  ).toBeVisible();
  await expect(undone).not.toContainText(/[{}"]|deleteAgeSeconds/);
  await expectAccessible(page, 'the rollback confirmation');
  await dialog.getByRole('button', { name: 'Roll back' }).click();
  await expect(
    page.getByText(`Rolled back to revision ${before}: committed as revision ${running + 1}.`),
  ).toBeVisible();
  await expect(log.getByRole('row').nth(1)).toContainText(`Rollback to revision ${before}`);

  await page.getByRole('link', { name: 'Target Sets' }).click();
  const group = page
    .getByRole('table', { name: /Target Sets, each with its IP list/ })
    .getByRole('rowgroup')
    .filter({ hasText: lab.tsa4 });
  await expect(group).toContainText('900');
  await expect(group).not.toContainText('1200');

  await expect(
    page.getByRole('table', { name: /Target Sets, each with its IP list/ }),
  ).not.toContainText('10.8.1.101');

  await page.goto(`/revisions/${running + 1}`);
  await expect(page.getByRole('heading', { name: `Revision ${running + 1}` })).toBeVisible();
  const rolledBack = page.getByLabel(`Configuration of revision ${running + 1}`);
  await expect(rolledBack).toContainText('"deleteAgeSeconds": 900');
  await expect(rolledBack).not.toContainText(mp4.name);
});
