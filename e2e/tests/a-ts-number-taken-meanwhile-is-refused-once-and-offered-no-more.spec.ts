import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('a TS Number another client took meanwhile is refused once, with focus on it, and offered no more', async ({
  page,
  api,
}) => {
  const lab = await api.lab(43);
  const [mp1, mp2] = lab.servers;
  await page.goto('/target-sets/insert?family=ipv4');
  const number = page.getByLabel('TS Number');
  const chosen = await number.inputValue();
  await page
    .getByRole('region', { name: 'Primary Public IP Address' })
    .getByLabel('Address', { exact: true })
    .fill(lab.tsa4);
  await page.getByLabel('IP Address, row 1', { exact: true }).selectOption(mp1!.v4);

  // Meanwhile another client inserts a Target Set with that number.
  await lab.targetSet({
    number: Number(chosen),
    family: 'ipv4',
    primary: { address: '10.43.1.101' },
    servers: [{ address: mp2!.v4 }],
  });

  await page.getByRole('button', { name: 'OK' }).click();
  await expect(
    page.getByRole('alert').filter({ hasText: `Target Set ${chosen} already exists` }),
  ).toBeVisible();
  // The refusal is where the operator is: on the field, scrolled into view.
  await expect(number).toBeFocused();
  await expect(number).toBeInViewport();
  // The numbers are read again: the taken one is offered no more, and the next unused one shows.
  await expect(number.locator(`option[value="${chosen}"]`)).toHaveCount(0);
  await expect(number).not.toHaveValue(chosen);
  await expect(number).toHaveAccessibleDescription(
    new RegExp(`Target Set ${chosen} was inserted by someone else meanwhile`),
  );
  const next = await number.inputValue();
  await expect(number.locator('option:checked')).toHaveText(next);

  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page).toHaveURL(/\/target-sets$/);
  api.track(`/api/target-sets/${next}`);
  const saved = await api.get(`/api/target-sets/${next}`);
  expect(saved.body.primary).toMatchObject({ address: lab.tsa4 });
});
