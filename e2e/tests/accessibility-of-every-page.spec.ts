import type { Page } from '@playwright/test';
import { authFile } from '../support/env';
import { expect, expectAccessible, test } from '../support/fixtures';

const heading = (page: Page, name: string | RegExp) =>
  expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

test.describe('as an operator', () => {
  test.use({ storageState: authFile('operator') });

  test('every page passes an axe scan for WCAG 2 A and AA', async ({ page, api }) => {
    // Twenty pages, each loaded and scanned: about a second apiece.
    test.setTimeout(120_000);
    const lab = await api.lab(9);
    const ts = await lab.targetSet({
      family: 'ipv6',
      primary: { address: lab.tsa6, activeIpfe: 'A2' },
      secondary: { address: `10.9.1.101`, activeIpfe: 'A1' },
      servers: lab.servers.map((s) => ({ address: s.v6, secondaryAddress: s.v4 })),
    });
    await api.post('/api/peer-node-groups', { name: 'e2e-9-peers', members: ['192.0.2.0/24'] });
    const revisions = Number((await api.get('/api/revisions')).body.total);

    const pages: [string, string | RegExp][] = [
      ['/target-sets', 'Target Sets [View]'],
      ['/target-sets/insert?family=ipv4', 'Target Sets [Insert]'],
      ['/target-sets/insert?family=ipv6', 'Target Sets [Insert]'],
      [`/target-sets/${ts.number}/edit`, 'Target Sets [Edit]'],
      ['/options', 'Options'],
      ['/xsi-networks', 'XSI Networks'],
      ['/xsi-networks/insert', 'XSI Networks [Insert]'],
      ['/xsi-networks/e2e-9-v4/edit', 'XSI Networks [Edit]'],
      ['/app-servers', 'Application Servers'],
      ['/app-servers/insert', 'Application Servers [Insert]'],
      ['/app-servers/s9-mp1/edit', 'Application Servers [Edit]'],
      ['/peer-node-groups', 'Peer Node Groups'],
      ['/peer-node-groups/insert', 'Peer Node Groups [Insert]'],
      ['/peer-node-groups/e2e-9-peers/edit', 'Peer Node Groups [Edit]'],
      ['/measurements', 'Measurements'],
      ['/revisions', 'Revisions'],
      ['/import', 'Import'],
      [`/revisions/${revisions}`, `Revision ${revisions}`],
      [`/revisions/diff?from=${revisions - 1}&to=${revisions}`, /Compare revision/],
      ['/no-such-page', 'Page not found'],
    ];
    for (const [path, name] of pages) {
      await page.goto(path);
      await heading(page, name);
      await expect(page.getByText(/^Loading/)).toHaveCount(0);
      await expectAccessible(page, path);
    }

    // With the secondary address set, the Edit page shows every control enabled.
    await page.goto(`/target-sets/${ts.number}/edit`);
    await expect(page.getByLabel('Secondary IP Address, row 1')).toBeEnabled();
    // A dialog open over a list.
    await page.goto('/target-sets');
    await page.getByRole('radio', { name: `Select Target Set ${ts.number}` }).check();
    await page.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await expectAccessible(page, 'the delete confirmation');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
  });

  test('the Insert page can be filled in with the keyboard alone', async ({ page, api }) => {
    const lab = await api.lab(10);
    await page.goto('/target-sets');
    await heading(page, 'Target Sets [View]');
    // Skip link, then the menu: Tab reaches the toolbar's Insert IPv4.
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
    await page.getByRole('link', { name: 'Insert IPv4' }).focus();
    await page.keyboard.press('Enter');
    await heading(page, 'Target Sets [Insert]');
    await page.getByLabel('TS Number').focus();
    // TS Number → Address family (read-only) → Protocols → Disable → Initiator → Delete Age → …
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Address family')).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('radio', { name: 'Both TCP and SCTP' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Disable')).toBeFocused();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Delete Age (s)')).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('radio', { name: 'Least Load' })).toBeFocused();
    await page.keyboard.press('ArrowLeft');
    await expect(page.getByRole('radio', { name: 'Hash' })).toBeChecked();
    // With Hash, the Least Load fields are skipped: the next stop is Serving, then the primary
    // address.
    await page.keyboard.press('Tab');
    await expect(page.getByRole('radio', { name: 'Active/Standby' })).toBeFocused();
    await page.keyboard.press('Tab');
    const primary = page.getByRole('region', { name: 'Primary Public IP Address' });
    await expect(primary.getByLabel('Address', { exact: true })).toBeFocused();
    await page.keyboard.type(lab.tsa4);
    await page.getByLabel('IP Address, row 1', { exact: true }).focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.getByLabel('IP Address, row 1', { exact: true })).toHaveValue(
      lab.servers[0]!.v4,
    );
    await page.getByRole('button', { name: 'OK' }).focus();
    await page.keyboard.press('Enter');
    const saved = page.getByText(/Target Set \d+ saved as revision \d+\./);
    await expect(saved).toBeVisible();
    api.track(`/api/target-sets/${/Target Set (\d+)/.exec((await saved.textContent())!)![1]}`);
  });
});

test.describe('as an admin', () => {
  test.use({ storageState: authFile('admin') });

  test('the user pages pass an axe scan', async ({ page }) => {
    for (const [path, name] of [
      ['/users', 'Users'],
      ['/users/insert', 'Users [Insert]'],
      ['/users/vera/edit', 'Users [Edit]'],
    ] as const) {
      await page.goto(path);
      await heading(page, name);
      await expect(page.getByText(/^Loading/)).toHaveCount(0);
      await expectAccessible(page, path);
    }
  });
});

test.describe('logged out, and as a viewer', () => {
  test('the login page passes an axe scan', async ({ page }) => {
    await page.goto('/login');
    await heading(page, /IPFE/);
    await expectAccessible(page, 'the login page');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByText('User name is required')).toBeVisible();
    await expectAccessible(page, 'the login page with errors');
  });

  test.describe(() => {
    test.use({ storageState: authFile('viewer') });
    test('the not-permitted page passes an axe scan', async ({ page }) => {
      await page.goto('/target-sets/insert?family=ipv4');
      await heading(page, 'Not permitted');
      await expectAccessible(page, 'the not-permitted page');
    });
  });
});
