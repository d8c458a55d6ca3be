import type { Page } from '@playwright/test';
import { join } from 'node:path';
import { ARTIFACTS, authFile } from '../support/env';
import { expect, expectAccessible, test } from '../support/fixtures';

test.use({ storageState: authFile('admin'), viewport: { width: 800, height: 900 } });

/**
 * What an operator in an 800-px window would miss: the page scrolling sideways, or a column
 * header, an input note or a control outside the window or cut off by a box that scrolls.
 */
async function expectToFit(page: Page, what: string) {
  const problems = await page.evaluate(() => {
    const root = document.documentElement;
    const found: string[] = [];
    if (root.scrollWidth > root.clientWidth) {
      found.push(`the page is ${root.scrollWidth} px wide in a ${root.clientWidth}-px window`);
    }
    const seen =
      'header a, header button, nav a, main th, main .field-help, main input, main select, main button, main a';
    for (const element of Array.from(document.querySelectorAll(seen))) {
      const box = element.getBoundingClientRect();
      // Not rendered (the folded menu), or visually hidden for screen readers only.
      if (box.width <= 1 || box.height <= 1) continue;
      const name = `${element.tagName.toLowerCase()} "${(element.textContent ?? '').trim().slice(0, 50)}"`;
      if (box.left < 0 || box.right > root.clientWidth + 0.5) {
        found.push(
          `${name} lies outside the window (${Math.round(box.left)}–${Math.round(box.right)} px)`,
        );
      }
      for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
        if (getComputedStyle(up).overflowX === 'visible') continue;
        const clip = up.getBoundingClientRect();
        if (box.left < clip.left - 0.5 || box.right > clip.right + 0.5) {
          found.push(`${name} is cut off by its scrolling box`);
        }
      }
    }
    return found;
  });
  expect(problems, `${what} in an 800-px window`).toEqual([]);
}

const heading = (page: Page, name: string) =>
  expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

test('an operator in an 800-px window reaches every page through the folded menu, and nothing needs a sideways scroll', async ({
  page,
  api,
}) => {
  test.setTimeout(90_000);
  const lab = await api.lab(61);
  // The widest Target Set: IPv6 primary, IPv4 secondary, every row with both addresses.
  const ts = await lab.targetSet({
    family: 'ipv6',
    primary: { address: lab.tsa6, activeIpfe: 'A1' },
    secondary: { address: '10.61.1.101', activeIpfe: 'A2' },
    servers: lab.servers.map((s) => ({
      address: s.v6,
      secondaryAddress: s.v4,
      description: `${s.name} in the lab of the narrow window`,
    })),
  });
  await api.post('/api/peer-node-groups', { name: 'e2e-61-peers', members: ['192.0.2.0/24'] });

  await page.goto('/target-sets');
  await heading(page, 'Target Sets [View]');
  // The menu is folded away behind the top bar's Menu button, which the keyboard opens and closes.
  const menu = page.getByRole('navigation', { name: 'Main menu' });
  const toggle = page.getByRole('button', { name: 'Menu' });
  await expect(menu).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(menu.getByRole('link', { name: 'Target Sets' })).toBeVisible();
  await expectToFit(page, 'the open menu');
  await expectAccessible(page, 'the open menu in an 800-px window');
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(toggle).toBeFocused();
  await expectToFit(page, 'Target Sets [View]');
  await expect(page.getByRole('columnheader', { name: 'Active bindings' })).toBeInViewport();

  // Following a link of the open menu shows that page with the menu folded again.
  await toggle.click();
  await menu.getByRole('link', { name: 'Options' }).click();
  await heading(page, 'Options');
  await expect(menu).toBeHidden();
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
  await expectToFit(page, 'Options');

  const pages: [string, string][] = [
    ['/target-sets/insert?family=ipv4', 'Target Sets [Insert]'],
    ['/target-sets/insert?family=ipv6', 'Target Sets [Insert]'],
    [`/target-sets/${ts.number}/edit`, 'Target Sets [Edit]'],
    ['/xsi-networks', 'XSI Networks'],
    ['/xsi-networks/insert', 'XSI Networks [Insert]'],
    ['/app-servers', 'Application Servers'],
    ['/app-servers/s61-mp1/edit', 'Application Servers [Edit]'],
    ['/peer-node-groups', 'Peer Node Groups'],
    ['/status', 'Status & Manage'],
    ['/alarms', 'Alarms'],
    ['/measurements', 'Measurements'],
    ['/revisions', 'Revisions'],
    ['/import', 'Import'],
    ['/users', 'Users'],
    ['/tokens', 'API tokens'],
    ['/audit', 'Audit log'],
  ];
  for (const [path, name] of pages) {
    await page.goto(path);
    await heading(page, name);
    await expect(page.getByText(/^Loading/)).toHaveCount(0);
    await expectToFit(page, path);
  }

  // The columns a person looks for first are in view, the last ones too.
  await page.goto(`/target-sets/${ts.number}/edit`);
  await heading(page, 'Target Sets [Edit]');
  await expect(page.getByLabel('Secondary IP Address, row 3')).toBeEnabled();
  await expectToFit(page, 'the Edit page with its secondary addresses');
  await page.getByRole('button', { name: /^Remove row 3/ }).scrollIntoViewIfNeeded();
  await expect(page.getByRole('button', { name: /^Remove row 3/ })).toBeInViewport();
  await page.screenshot({ path: join(ARTIFACTS, 'narrow-edit.png'), fullPage: true });

  await page.goto('/alarms');
  const active = page.getByRole('heading', { name: /^Active alarms \((\d+)\)$/ });
  await expect(active).toBeVisible();
  const alarms = page.getByRole('table', { name: 'Active alarms' });
  if (await alarms.isVisible()) {
    for (const column of ['Severity', 'Alarm', 'IPFE', 'Server', 'Text', 'Raised', 'For']) {
      await expect(
        alarms.getByRole('columnheader', { name: column, exact: true }),
      ).toBeInViewport();
    }
  }
  await page.screenshot({ path: join(ARTIFACTS, 'narrow-alarms.png'), fullPage: true });

  await page.goto('/status');
  await expect(
    page
      .getByRole('table', { name: 'IPFE nodes' })
      .getByRole('columnheader', { name: 'Active alarms' }),
  ).toBeInViewport();
  await expectAccessible(page, 'the Status page in an 800-px window');
  await page.screenshot({ path: join(ARTIFACTS, 'narrow-status.png'), fullPage: true });
});
