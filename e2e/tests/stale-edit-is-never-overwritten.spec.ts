import { authFile } from '../support/env';
import { expect, test, type ConfigApi } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

/** A lab of its own with an IPv4 Target Set of two servers, weights 100. */
async function twoServerTargetSet(api: ConfigApi, lab: number) {
  const { servers, tsa4, targetSet } = await api.lab(lab);
  const [mp1, mp2] = servers;
  return targetSet({
    family: 'ipv4',
    primary: { address: tsa4 },
    servers: [{ address: mp1!.v4 }, { address: mp2!.v4 }],
  });
}

/** Another operator saves the Target Set with every weight changed, through the API. */
function someoneElseSetsTheWeights(api: ConfigApi, number: unknown, weight: number) {
  return api.put(`/api/target-sets/${String(number)}`, (current) => ({
    ...current,
    primary: { address: (current.primary as { address: string }).address, activeIpfe: 'A1' },
    secondary: null,
    servers: (current.servers as { address: string }[]).map((s) => ({
      address: s.address,
      weight,
    })),
    warnings: undefined,
    owner: undefined,
    activeBindings: undefined,
    notForwarded: undefined,
    notServed: undefined,
  }));
}

test('an operator whose Target Set was saved by someone else meanwhile is told so, and nothing is overwritten', async ({
  page,
  api,
}) => {
  const ts = await twoServerTargetSet(api, 7);

  await page.goto(`/target-sets/${ts.number}/edit`);
  await expect(page.getByLabel('Weighting, row 1')).toHaveValue('100');

  // Someone else saves first.
  await someoneElseSetsTheWeights(api, ts.number, 7);

  await page.getByLabel('Weighting, row 1').fill('200');
  await page.getByRole('button', { name: 'Apply' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Changed by someone else' });
  await expect(alert).toContainText(
    `Someone else saved Target Set ${ts.number} after you opened it`,
  );
  await expect(alert).toContainText('nothing was overwritten');
  expect(
    ((await api.get(`/api/target-sets/${ts.number}`)).body.servers as { weight: number }[])[0]!
      .weight,
  ).toBe(7);

  // Their version is loaded with the operator's weight on top, and the alert says which is which.
  const changes = alert.getByRole('table', { name: 'Changes, field by field' });
  await expect(changes.getByRole('row', { name: /^Weighting, row 1/ })).toContainText(
    '200 (both changed it: yours replaces theirs)',
  );
  await expect(changes.getByRole('row', { name: /^Weighting, row 2/ })).toContainText('7 (theirs)');
  await expect(page.getByLabel('Weighting, row 1')).toHaveValue('200');
  await expect(page.getByLabel('Weighting, row 2')).toHaveValue('7');

  // The operator may take their version as it is instead.
  await alert.getByRole('button', { name: 'Discard my changes, keep theirs' }).click();
  await expect(page.getByLabel('Weighting, row 1')).toHaveValue('7');
  await expect(page.getByText('Changed by someone else')).toHaveCount(0);
});

test('a newer version loaded in the background while the operator types is not saved over (the save carries the ETag of the version the form shows)', async ({
  page,
  api,
}) => {
  const ts = await twoServerTargetSet(api, 12);

  await page.goto(`/target-sets/${ts.number}/edit`);
  await page.getByLabel('Description, row 1').fill('primary site');

  // Someone else changes the weights meanwhile.
  await someoneElseSetsTheWeights(api, ts.number, 7);

  // The page reloads its data in the background: back online once the data is stale (10 s).
  const reloaded = page.waitForResponse(
    (r) => r.url().endsWith(`/api/target-sets/${ts.number}`) && r.request().method() === 'GET',
    { timeout: 20_000 },
  );
  await page.waitForTimeout(10_500);
  await page.context().setOffline(true);
  await page.context().setOffline(false);
  await reloaded;

  await page.getByRole('button', { name: 'OK' }).click();
  await expect(
    page.getByRole('alert').filter({ hasText: 'Changed by someone else' }),
  ).toBeVisible();
  const stored = (await api.get(`/api/target-sets/${ts.number}`)).body;
  expect((stored.servers as { weight: number }[]).map((s) => s.weight)).toEqual([7, 7]);
  expect((stored.servers as { description: string }[])[0]!.description).toBe('');
});
