import { readFile } from 'node:fs/promises';
import { authFile } from '../support/env';
import { expect, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

const BGP_MISSING = 'Active-Active needs BGP configured under IPFE › Configuration › Options';
const LEAST_LOAD_REFUSED =
  'Least Load is not available with Active-Active serving (it needs one IPFE’s view of the connections): choose Hash';

let targetSetNumber: number | undefined;

test.beforeEach(async ({ api }) => {
  // The flow starts where an installation starts: no BGP under Options.
  await api.put('/api/options', (options) => ({ ...options, bgp: null }));
});

test.afterEach(async ({ api }) => {
  // BGP can only be cleared once no Target Set is served active-active.
  if (targetSetNumber !== undefined) await api.remove(`/api/target-sets/${targetSetNumber}`);
  await api.put('/api/options', (options) => ({ ...options, bgp: null }));
});

test('an operator turns a Target Set active-active once an admin has configured BGP', async ({
  page,
  api,
  browser,
}) => {
  const lab = await api.lab(18);
  const [mp1, mp2] = lab.servers;
  const ts = await lab.targetSet({
    family: 'ipv4',
    primary: { address: lab.tsa4 },
    servers: [{ address: mp1!.v4 }, { address: mp2!.v4 }],
  });
  targetSetNumber = ts.number as number;

  const serving = page.getByRole('region', { name: 'Serving' });
  const group = serving.getByRole('group', { name: /Active-Active IPFEs/ });
  const a1 = group.getByRole('checkbox', { name: 'IPFE-A1' });
  const a2 = group.getByRole('checkbox', { name: 'IPFE-A2' });
  const openEdit = async () => {
    await page.goto('/target-sets');
    await page.getByRole('radio', { name: `Select Target Set ${targetSetNumber}` }).check();
    await page.getByRole('button', { name: 'Edit' }).click();
    await expect(page.getByRole('heading', { name: 'Target Sets [Edit]' })).toBeVisible();
    await expect(serving.getByRole('radio', { name: 'Active/Standby' })).toBeChecked();
    await expect(page.getByRole('radio', { name: 'Least Load' })).toBeChecked();
  };

  // Before BGP is configured: refused on Serving, saying where BGP is configured.
  await openEdit();
  await page.getByRole('radio', { name: 'Hash' }).check();
  await serving.getByRole('radio', { name: 'Active-Active' }).check();
  await a1.check();
  await a2.check();
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(serving.getByText(BGP_MISSING)).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [View]' })).toBeVisible();

  // The operator opens Edit again and turns the set active-active, while BGP is still missing.
  await openEdit();
  await serving.getByRole('radio', { name: 'Active-Active' }).check();
  // Least Load is refused on its own field as soon as Active-Active is chosen.
  await expect(page.getByText(LEAST_LOAD_REFUSED)).toBeVisible();
  await page.getByRole('radio', { name: 'Hash' }).check();
  await expect(page.getByText(LEAST_LOAD_REFUSED)).toHaveCount(0);
  await expect(a1).toBeEnabled();
  await expect(a2).toBeEnabled();
  // Both ticked with the keyboard: Space on A1, Tab to A2, Space.
  await a1.focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  await expect(a2).toBeFocused();
  await page.keyboard.press('Space');
  await expect(a1).toBeChecked();
  await expect(a2).toBeChecked();
  const primary = page.getByRole('region', { name: 'Primary Public IP Address' });
  await expect(primary.getByRole('radio', { name: 'IPFE-A1' })).toBeDisabled();
  await expect(primary.getByLabel('Preferred Standby')).toHaveValue('None (served active-active)');

  // Meanwhile an admin, in a browser of their own, configures BGP to one upstream router.
  const adminContext = await browser.newContext({ storageState: authFile('admin') });
  const admin = await adminContext.newPage();
  await admin.goto('/options');
  await expect(admin.getByRole('heading', { name: 'Options', level: 1 })).toBeVisible();
  const bgp = admin.getByRole('region', { name: 'BGP' });
  await bgp.getByRole('checkbox', { name: 'Announce over BGP' }).check();
  await bgp.getByLabel('BGP ASN').fill('65010');
  await bgp.getByLabel('BGP peer 1 address').fill('127.0.18.254');
  await bgp.getByLabel('BGP peer 1 ASN').fill('65000');
  await expect(bgp.getByLabel('BFD interval (ms)')).toHaveValue('50');
  await expect(bgp.getByLabel('BFD multiplier')).toHaveValue('3');
  await admin.getByRole('button', { name: 'Apply' }).click();
  await expect(admin.getByText(/Options saved as revision \d+\./)).toBeVisible();
  await admin.reload();
  await expect(admin.getByLabel('BGP peer 1 address')).toHaveValue('127.0.18.254');
  await adminContext.close();

  // Apply on the page opened before BGP was saved: checked against Options as they are now.
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(
    page.getByText(new RegExp(`Target Set ${targetSetNumber} saved as revision \\d+\\.`)),
  ).toBeVisible();
  await expect(serving.getByText(BGP_MISSING)).toHaveCount(0);
  await expect(serving.getByRole('radio', { name: 'Active-Active' })).toBeChecked();
  await expect(a1).toBeChecked();
  await expect(a2).toBeChecked();
  await page.screenshot({ path: '/tmp/h/aa-edit.png', fullPage: true });

  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [View]' })).toBeVisible();
  const main = page.getByRole('table', { name: /Target Sets, each with its IP list/ });
  await expect(main).toContainText(lab.tsa4);
  await expect(main).toContainText('IPFE-A1, IPFE-A2 (active-active)');
  await expect(main).not.toContainText('active IPFE-A1 · standby IPFE-A2');
  await page.screenshot({ path: '/tmp/h/aa-view.png', fullPage: true });

  // The exported config document carries it as saved.
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export (JSON document)' }).click();
  const document = JSON.parse(await readFile((await (await download).path())!, 'utf8')) as {
    config: {
      targetSets: {
        number: number;
        algorithm: string;
        serving: string;
        activeActiveIpfes: string[];
      }[];
      options: { bgp: { asn: number; peers: { address: string; asn: number }[] } | null };
    };
  };
  expect(document.config.targetSets.find((t) => t.number === targetSetNumber)).toMatchObject({
    algorithm: 'hash',
    serving: 'activeActive',
    activeActiveIpfes: ['A1', 'A2'],
  });
  expect(document.config.options.bgp).toMatchObject({
    asn: 65010,
    peers: [{ address: '127.0.18.254', asn: 65000 }],
  });
});
