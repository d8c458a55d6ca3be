import type { Page } from '@playwright/test';
import { join } from 'node:path';
import { ARTIFACTS, authFile } from '../support/env';
import { expect, expectAccessible, test } from '../support/fixtures';

const heading = (page: Page, name: string) =>
  expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

test.use({ storageState: authFile('admin') });

test('the Status, Alarms and Audit log pages pass an axe scan, and the audit log names each change', async ({
  page,
  api,
}) => {
  test.setTimeout(60_000);
  const lab = await api.lab(11);
  const ts = await lab.targetSet({
    family: 'ipv4',
    algorithm: 'hash',
    primary: { address: lab.tsa4 },
    servers: lab.servers.map((s) => ({ address: s.v4 })),
  });

  // This OAM's IPFEs do not exist: the page says so, per IPFE and per Target Set.
  await page.goto('/status');
  await heading(page, 'Status & Manage');
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
  const panel = page.getByRole('region', { name: new RegExp(`Target Set ${ts.number}\\b`) });
  await expect(panel).toContainText('No IPFE reports this Target Set now');
  await expect(
    page.getByRole('table', { name: 'IPFE nodes' }).getByRole('row', { name: /^IPFE-B1/ }),
  ).toContainText('not configured');
  // One OAM on the embedded SQLite store: it leads (pushes, mirrors alarms, sends traps).
  await expect(
    page.getByRole('table', { name: 'OAM servers of this cluster' }).getByRole('row', {
      name: /this one/,
    }),
  ).toContainText('leader');
  await expect(page.getByText('No OAM leads right now')).toHaveCount(0);
  await expectAccessible(page, '/status');
  await page.screenshot({ path: join(ARTIFACTS, 'status.png'), fullPage: true });

  await page.getByRole('link', { name: 'Alarms', exact: true }).click();
  await heading(page, 'Alarms');
  await expect(page.getByRole('heading', { name: /^Active alarms \(\d+\)$/ })).toBeVisible();
  await expectAccessible(page, '/alarms');

  await page.getByRole('link', { name: 'Audit log' }).click();
  await heading(page, 'Audit log');
  const log = page.getByRole('table', { name: 'Audit log, newest first' });
  await expect(
    log.getByRole('row', { name: new RegExp(`/api/target-sets\\b`) }).first(),
  ).toContainText(/admin.*insert.*done \(201\)revision \d+/);
  await expect(log.getByRole('row', { name: /log in/ }).first()).toContainText('/api/session');
  await expectAccessible(page, '/audit');
  await page.screenshot({ path: join(ARTIFACTS, 'audit-log.png') });
});
