import { credentialsOf } from '../support/env';
import { expect, logIn, test } from '../support/fixtures';

test('an operator whose session expired logs in again and is back where they were', async ({
  page,
}) => {
  const operator = credentialsOf('operator');
  await page.goto('/login');
  await logIn(page, operator.name, operator.password);
  await expect(page.getByRole('heading', { name: 'Target Sets [View]' })).toBeVisible();
  await page.getByRole('link', { name: 'Peer Node Groups' }).click();
  await expect(page.getByRole('heading', { name: 'Peer Node Groups', level: 1 })).toBeVisible();

  // The session ends on the server's side (as when it times out): the cookie no longer works.
  await page.context().clearCookies();
  await page.getByRole('link', { name: 'Revisions' }).click();
  await expect(page).toHaveURL(/\/login\?next=%2Frevisions$/);
  await expect(page.getByText('Log in to continue (your session may have expired).')).toBeVisible();

  await logIn(page, operator.name, operator.password);
  await expect(page).toHaveURL(/\/revisions$/);
  await expect(page.getByRole('heading', { name: 'Revisions', level: 1 })).toBeVisible();

  // A deep link reloads to the same page once logged in.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Revisions', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login$/);
});
