import { ADMIN } from '../support/env';
import { ConfigApi, expect, expectAccessible, logIn, test } from '../support/fixtures';

test.beforeAll(async () => {
  // This flow starts from unconfigured IPFE nodes; the other flows leave no Target Set behind.
  const api = await ConfigApi.open(process.env.E2E_BASE_URL!);
  await api.put('/api/options', (options) => ({
    ...options,
    ipfe: { A1: null, A2: null, B1: null, B2: null },
  }));
  await api.cleanup();
});

test('an admin configures IPFE A1 and A2, an XSI network and three application servers', async ({
  page,
  api,
}) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/login/);
  await logIn(page, ADMIN.name, ADMIN.password);
  await expect(page.getByRole('banner')).toContainText(`Logged in as ${ADMIN.name}`);
  await expect(page.getByRole('banner')).toContainText('admin');

  // The empty View says what to configure first.
  await expect(page.getByText('No Target Set yet.')).toBeVisible();

  await page
    .getByRole('navigation', { name: 'Main menu' })
    .getByRole('link', { name: 'Options' })
    .click();
  await expect(page.getByRole('heading', { name: 'Options', level: 1 })).toBeVisible();
  await page.getByLabel('IPFE A1 address').fill('127.31.0.1');
  await page.getByLabel('IPFE A2 address').fill('127.31.0.2');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText(/Options saved as revision \d+\./)).toBeVisible();
  await expect(page.getByLabel('IPFE A1 address')).toHaveValue('127.31.0.1');

  await page.getByRole('link', { name: 'XSI Networks' }).click();
  await page.getByRole('link', { name: 'Insert' }).click();
  await expect(page.getByRole('heading', { name: 'XSI Networks [Insert]' })).toBeVisible();
  await page.getByLabel('Name').fill('xsi-a');
  await page.getByLabel('Network (CIDR)').fill('10.1.1.7/24');
  await page.getByLabel('Network (CIDR)').blur();
  // Host bits set: the schema's own wording, shown when the field is left.
  await expect(
    page.getByText('Network has host bits set: did you mean 10.1.1.0/24?'),
  ).toBeVisible();
  await page.getByLabel('Network (CIDR)').fill('10.1.1.0/24');
  api.track('/api/xsi-networks/xsi-a');
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByRole('heading', { name: 'XSI Networks', level: 1 })).toBeVisible();
  await expect(page.getByText(/XSI network xsi-a saved as revision \d+\./)).toBeVisible();
  await expect(page.getByRole('cell', { name: '10.1.1.0/24' })).toBeVisible();

  await page.getByRole('link', { name: 'Application Servers' }).click();
  for (const i of [1, 2, 3]) {
    await page.getByRole('link', { name: 'Insert' }).click();
    await page.getByLabel('Name').fill(`mp${i}`);
    await page.getByLabel('Address', { exact: true }).fill(`10.1.1.1${i}`);
    await expect(page.getByLabel('Initiator Port Range')).toHaveValue('Allocated on save');
    api.track(`/api/app-servers/mp${i}`);
    await page.getByRole('button', { name: 'OK' }).click();
    await expect(
      page.getByRole('heading', { name: 'Application Servers', level: 1 }),
    ).toBeVisible();
  }
  const table = page.getByRole('table', { name: 'Application servers' });
  await expect(table.getByRole('row')).toHaveCount(4);
  await expect(table.getByRole('row', { name: /mp1/ })).toContainText('16384–16895');
  await expect(table.getByRole('row', { name: /mp3/ })).toContainText('17408–17919');

  // The network is in use: its delete is refused, naming the servers that use it.
  await page.getByRole('link', { name: 'XSI Networks' }).click();
  await page.getByRole('radio', { name: 'Select XSI network xsi-a' }).check();
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete XSI network xsi-a?' });
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(dialog.getByRole('alert')).toContainText(
    'XSI network xsi-a is still used by application servers mp1, mp2 and mp3',
  );
  await expectAccessible(page, 'the refused delete');
  await dialog.getByRole('button', { name: 'Close' }).click();

  // An application server that nothing uses can go.
  await page.getByRole('link', { name: 'Application Servers' }).click();
  await page.getByRole('radio', { name: 'Select application server mp3' }).check();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Application server mp3 deleted.')).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(3);

  // An account for a colleague, under Administration › Users (admins only).
  await page.getByRole('link', { name: 'Users' }).click();
  await page.getByRole('link', { name: 'Insert' }).click();
  await page.getByLabel('Name').fill('oscar');
  await page.getByLabel('Password').fill('short');
  await page.getByLabel('Password').blur();
  await expect(page.getByText('password must be at least 8 characters')).toBeVisible();
  await page.getByLabel('Password').fill('oscar-pass-1');
  await page.getByRole('radio', { name: /Operator/ }).check();
  api.track('/api/users/oscar');
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText('User oscar saved.')).toBeVisible();
  await expect(page.getByRole('row', { name: /oscar/ })).toContainText('operator');
});
