import { authFile } from '../support/env';
import { expect, expectAccessible, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('an operator sees field errors for a bad address, a range violation, a wrong-family address and a partly overlapping IP list', async ({
  page,
  api,
}) => {
  const lab = await api.lab(5);
  const [mp1, mp2, mp3] = lab.servers;
  const existing = await lab.targetSet({
    family: 'ipv4',
    primary: { address: lab.tsa4 },
    servers: [{ address: mp1!.v4 }, { address: mp2!.v4 }],
  });

  await page.goto('/target-sets/insert?family=ipv4');
  const primary = page.getByRole('region', { name: 'Primary Public IP Address' });
  const address = primary.getByLabel('Address', { exact: true });

  // A bad address: shown when the field is left, as the schema words it.
  await address.fill('10.5.1.300');
  await expect(page.getByText('Address must be an IPv4 or IPv6 address')).toHaveCount(0);
  await address.blur();
  await expect(address).toHaveAccessibleDescription(/Address must be an IPv4 or IPv6 address/);

  // An address of the wrong family.
  await address.fill('fd00:5::100');
  await expect(address).toHaveAccessibleDescription(
    /fd00:5::100 is not an IPv4 address \(this is an IPv4 Target Set\)/,
  );
  await address.fill('10.5.1.101');
  await expect(address).not.toHaveAttribute('aria-invalid');

  // A range violation.
  const deleteAge = page.getByLabel('Delete Age (s)');
  await deleteAge.fill('5');
  await deleteAge.blur();
  await expect(deleteAge).toHaveAccessibleDescription(
    /Delete Age \(s\) must be a whole number from 10 to 3110400/,
  );
  await deleteAge.fill('300');
  await expect(deleteAge).toHaveAccessibleDescription(
    /Reducing Delete Age below the default \(600 s\) is inadvisable/,
  );

  // A list that shares one server with Target Set `existing`, but not all.
  await page.getByLabel('IP Address, row 1', { exact: true }).selectOption(mp1!.v4);
  await page.getByRole('button', { name: 'Add server' }).click();
  await page.getByLabel('IP Address, row 2', { exact: true }).selectOption(mp3!.v4);
  await page.getByLabel('IP Address, row 2', { exact: true }).blur();
  const ipList = page.getByRole('region', { name: 'Target Set IP List' });
  const overlap = `The IP list partly overlaps the IP list of Target Set ${existing.number} (shared: ${mp1!.v4}); two lists must be identical or disjoint`;
  await expect(ipList.getByText(overlap)).toBeVisible();
  await expectAccessible(page, 'the Insert page with errors shown');

  // OK refuses to save while errors stand; nothing was committed.
  const before = await api.get('/api/revisions');
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [Insert]' })).toBeVisible();
  await expect(ipList.getByText(overlap)).toBeVisible();
  expect((await api.get('/api/revisions')).body.total).toBe(before.body.total);

  // Identical lists are allowed: with mp2 instead of mp3 the save goes through.
  await page.getByLabel('IP Address, row 2', { exact: true }).selectOption(mp2!.v4);
  await expect(ipList.getByText(overlap)).toHaveCount(0);
  await page.getByRole('button', { name: 'OK' }).click();
  const saved = page.getByText(/Target Set \d+ saved as revision \d+\./);
  await expect(saved).toBeVisible();
  api.track(`/api/target-sets/${/Target Set (\d+)/.exec((await saved.textContent())!)![1]}`);
  await expect(
    page.getByText('Warning: Reducing Delete Age below the default (600 s) is inadvisable'),
  ).toBeVisible();
});
