import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { authFile, REPO_ROOT } from '../support/env';
import { expect, expectAccessible, test } from '../support/fixtures';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real `ipfe` CLI, as a CI job runs it: the OAM's address and the token in its environment. */
function ipfe(args: string[], url: string, token: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'apps/cli/bin/ipfe.js'), ...args],
      { env: { PATH: process.env.PATH, IPFE_URL: url, IPFE_TOKEN: token } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

test.use({ storageState: authFile('operator') });

test('an operator makes an API token, the CLI works with it, and stops once it is revoked', async ({
  page,
  baseURL,
}) => {
  await page.goto('/target-sets');
  await page
    .getByRole('navigation', { name: 'Main menu' })
    .getByRole('link', { name: 'API tokens' })
    .click();
  await expect(page.getByRole('heading', { name: 'API tokens', level: 1 })).toBeVisible();
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
  await expectAccessible(page, 'the API tokens page');

  const name = `e2e-ci-${Date.now()}`;
  await page.getByLabel('Token name').fill(name);
  await page.getByLabel('Token name').press('Enter');
  const secretField = page.getByLabel(`Secret of token ${name}`);
  await expect(secretField).toHaveValue(/^ipfe_[A-Za-z0-9_-]{43}$/);
  await expect(page.getByText('Copy it now: it is not shown again.')).toBeVisible();
  await expectAccessible(page, 'the new token with its secret');
  const secret = await secretField.inputValue();

  const status = await ipfe(['status'], baseURL!, secret);
  expect(status.stderr).toBe('');
  expect(status.code).toBe(0);
  expect(status.stdout).toMatch(/^Running revision \d+\nIPFE +STATE +DESIRED +APPLIED/);

  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByText(secret)).toHaveCount(0);
  const row = page.getByRole('row', { name: new RegExp(name) });
  await expect(row).toBeVisible();
  await page.getByRole('button', { name: `Revoke token ${name}` }).click();
  const dialog = page.getByRole('dialog', { name: `Revoke token ${name}?` });
  await expect(dialog).toBeVisible();
  await expectAccessible(page, 'the revoke confirmation');
  await dialog.getByRole('button', { name: 'Revoke' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(row).toHaveCount(0);

  const refused = await ipfe(['status'], baseURL!, secret);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^ipfe status: API token revoked \(/);
});
