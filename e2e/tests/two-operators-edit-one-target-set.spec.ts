import { join } from 'node:path';
import { ARTIFACTS, authFile } from '../support/env';
import { expect, expectAccessible, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('two operators edit one target set and the second keeps their typing', async ({
  page,
  browser,
  api,
}) => {
  const lab = await api.lab(21);
  const [mp1, mp2] = lab.servers;
  const ts = await lab.targetSet({
    family: 'ipv4',
    primary: { address: lab.tsa4 },
    servers: [{ address: mp1!.v4 }, { address: mp2!.v4 }],
  });
  const edit = `/target-sets/${ts.number}/edit`;

  // Operator B (this page) opens the Edit page and starts typing.
  await page.goto(edit);
  await page.getByLabel('Description, row 1').fill('primary site');
  await page.getByLabel('Delete Age (s)').fill('900');

  // Meanwhile operator A, in a browser of their own, saves the same Target Set.
  const other = await browser.newContext({ storageState: authFile('admin') });
  const a = await other.newPage();
  await a.goto(edit);
  await a.getByLabel('Delete Age (s)').fill('1200');
  await a.getByRole('radio', { name: 'TCP only' }).check();
  await a.getByRole('button', { name: 'OK' }).click();
  await expect(a.getByText(`Target Set ${ts.number} saved as revision`)).toBeVisible();
  await other.close();

  // B presses OK: refused, nothing overwritten, A's version loaded with B's typing on top.
  await page.getByRole('button', { name: 'OK' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Changed by someone else' });
  await expect(alert).toBeFocused();
  await expect(alert).toContainText(
    `Someone else saved Target Set ${ts.number} after you opened it. Your changes were not saved and nothing was overwritten.`,
  );
  await expect(alert).toContainText(
    'You both changed one field: the form holds your value, which replaces theirs when you save.',
  );
  const changes = alert.getByRole('table', { name: 'Changes, field by field' });
  const row = (name: string) => changes.getByRole('row', { name: new RegExp(`^${name}`) });
  await expect(row('Protocols').getByRole('cell')).toHaveText([
    'Both TCP and SCTP',
    'TCP only',
    '—',
    'TCP only (theirs)',
  ]);
  await expect(row('Delete Age').getByRole('cell')).toHaveText([
    '600',
    '1200',
    '900',
    '900 (both changed it: yours replaces theirs)',
  ]);
  await expect(row('Description, row 1').getByRole('cell')).toHaveText([
    '(empty)',
    'unchanged',
    'primary site',
    'primary site (yours)',
  ]);
  await expect(page.getByLabel('Description, row 1')).toHaveValue('primary site');
  await expect(page.getByLabel('Delete Age (s)')).toHaveValue('900');
  await expect(page.getByRole('radio', { name: 'TCP only' })).toBeChecked();
  const stored = (await api.get(`/api/target-sets/${ts.number}`)).body;
  expect(stored.deleteAgeSeconds).toBe(1200);
  expect((stored.servers as { description: string }[])[0]!.description).toBe('');
  await page.screenshot({ path: join(ARTIFACTS, 'target-sets-edit-conflict.png'), fullPage: true });
  await expectAccessible(page, 'the Edit page after a refused save');

  // OK again saves both operators' changes, with the ETag of A's version.
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [View]' })).toBeVisible();
  await expect(page.getByText(`Target Set ${ts.number} saved as revision`)).toBeVisible();
  const saved = (await api.get(`/api/target-sets/${ts.number}`)).body;
  expect(saved.deleteAgeSeconds).toBe(900);
  expect(saved.protocols).toBe('tcp');
  expect((saved.servers as { description: string }[])[0]!.description).toBe('primary site');
});

test('two operators change the options and the second keeps their typing', async ({
  page,
  api,
}) => {
  await api.ensureIpfe();
  const { body: before } = await api.get('/api/options');
  try {
    await page.goto('/options');
    const threshold = page.getByLabel('Imbalance threshold (%)');
    await expect(threshold).toHaveValue(String(before.imbalanceThresholdPct));
    await threshold.fill('35');

    const retry = before.connectTryIntervalS === 5 ? 6 : 5;
    await api.put('/api/options', (current) => ({ ...current, connectTryIntervalS: retry }));

    await page.getByRole('button', { name: 'Apply' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Changed by someone else' });
    const changes = alert.getByRole('table', { name: 'Changes, field by field' });
    await expect(
      changes.getByRole('row', { name: /^Connect try interval/ }).getByRole('cell'),
    ).toHaveText([String(before.connectTryIntervalS), String(retry), '—', `${retry} (theirs)`]);
    await expect(
      changes.getByRole('row', { name: /^Imbalance threshold/ }).getByRole('cell'),
    ).toHaveText([String(before.imbalanceThresholdPct), 'unchanged', '35', '35 (yours)']);
    await expect(page.getByLabel('Connect try interval (s)')).toHaveValue(String(retry));
    await expect(threshold).toHaveValue('35');

    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByText(/Options saved as revision \d+\./)).toBeVisible();
    await expect(alert).toHaveCount(0);
    const { body: saved } = await api.get('/api/options');
    expect(saved.connectTryIntervalS).toBe(retry);
    expect(saved.imbalanceThresholdPct).toBe(35);
  } finally {
    await api.put('/api/options', () => before);
  }
});
