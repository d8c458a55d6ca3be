import { join } from 'node:path';
import { ARTIFACTS, authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

test('an operator applies an unchanged page and is told nothing was saved, and reads a refusal with the fields named as on the page', async ({
  page,
  api,
}) => {
  const lab = await api.lab(31);
  const [mp1, mp2] = lab.servers;
  const ts = await lab.targetSet({
    family: 'ipv4',
    algorithm: 'leastLoad',
    primary: { address: lab.tsa4 },
    servers: [{ address: mp1!.v4 }, { address: mp2!.v4 }],
  });
  const revisions = async () => Number((await api.get('/api/revisions')).body.total);
  const before = await revisions();

  // Apply on an Edit page with nothing changed: no revision, and the page says so.
  await page.goto(`/target-sets/${ts.number}/edit`);
  await expect(page.getByRole('heading', { name: 'Target Sets [Edit]' })).toBeVisible();
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'Nothing to save: no change.' }),
  ).toBeVisible();
  await expect(page.getByText(/saved as revision/)).toHaveCount(0);
  expect(await revisions()).toBe(before);

  // The same on Options.
  await page.goto('/options');
  await expect(page.getByRole('heading', { name: 'Options', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'Nothing to save: no change.' }),
  ).toBeVisible();
  expect(await revisions()).toBe(before);

  // Leaving heartbeat monitoring while a Target Set uses Least Load: refused, in words.
  await page.getByRole('radio', { name: 'TCP connect only' }).check();
  await page.getByRole('button', { name: 'Apply' }).click();
  const refusal = page.getByRole('alert').filter({ hasText: 'was not saved' });
  await expect(refusal).toContainText('The Options page was not saved');
  await expect(refusal.getByRole('listitem')).toHaveText([
    new RegExp(
      `^Monitoring protocol: Only Heartbeat monitoring supports Least Load, the algorithm of Target Sets? [0-9, and]*\\b${ts.number}\\b`,
    ),
  ]);
  await expect(refusal).not.toContainText('monitorProtocol');
  await expect(refusal).not.toContainText('IPFE › Configuration › Options');
  await page.screenshot({ path: join(ARTIFACTS, 'options-refusal.png'), fullPage: true });
  expect(await revisions()).toBe(before);
});
