import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('an operator who reloads the Edit page while their save is on its way is not told someone else saved', async ({
  page,
  api,
}) => {
  const lab = await api.lab(23);
  const [mp1, mp2] = lab.servers;
  const ts = await lab.targetSet({
    family: 'ipv4',
    primary: { address: lab.tsa4 },
    servers: [{ address: mp1!.v4 }, { address: mp2!.v4 }],
  });
  const edit = `/target-sets/${ts.number}/edit`;
  await page.goto(edit);
  await expect(page.getByLabel('Delete Age (s)')).toHaveValue('600');
  await page.getByLabel('Delete Age (s)').fill('900');

  // The save reaches the server and is committed; its answer is held until the page is reloaded,
  // as when the operator presses reload the moment after OK.
  let committed!: () => void;
  const onServer = new Promise<void>((resolve) => (committed = resolve));
  const held: { abort: () => Promise<void> }[] = [];
  await page.route(`**/api/target-sets/${ts.number}`, async (route) => {
    if (route.request().method() !== 'PUT') return route.fallback();
    await route.fetch();
    held.push({ abort: () => route.abort().catch(() => {}) });
    committed();
  });
  await page.getByRole('button', { name: 'OK' }).click();
  await onServer;
  await page.reload();
  for (const route of held) await route.abort();
  await page.unroute(`**/api/target-sets/${ts.number}`);

  await expect(page.getByRole('heading', { name: 'Target Sets [Edit]' })).toBeVisible();
  await expect(page.getByLabel('Delete Age (s)')).toHaveValue('900');
  await expect(page.getByText(/someone else/i)).toHaveCount(0);
  await expect(page.getByText('Your unsaved changes were kept')).toHaveCount(0);
  await expect(
    page.getByText('Your save went through before the page was loaded again'),
  ).toBeVisible();
  expect((await api.get(`/api/target-sets/${ts.number}`)).body.deleteAgeSeconds).toBe(900);

  // The draft went with the save: nothing comes back on the next reload either.
  await page.reload();
  await expect(page.getByLabel('Delete Age (s)')).toHaveValue('900');
  await expect(page.getByText('Your unsaved changes were kept')).toHaveCount(0);
  await expect(page.getByText('Your save went through')).toHaveCount(0);
});
