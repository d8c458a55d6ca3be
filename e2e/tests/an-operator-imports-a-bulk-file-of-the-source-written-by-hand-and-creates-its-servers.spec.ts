import { expect, expectAccessible, logIn, test } from '../support/fixtures';
import { adminSession, startOam, stopAll } from '../support/stack';

/**
 * An OAM of its own on the loopback block 127.27.0.0/16 (no other test uses it): the source's
 * bulk file replaces the options and every Target Set, which the shared OAM of the other flows
 * must not see. No agent runs: the import is configuration only.
 */
const NET = '127.27';
const OAM_HOST = `${NET}.0.1`;
const ADMIN_PASSWORD = 'e2e-bulk-admin-pass';
const OPERATOR = { name: 'oskar', password: 'e2e-bulk-operator-pass' };

/**
 * The file, typed from SOURCE-FACTS.md: the Options record (application type, keyword, the four
 * IPFE addresses, then the options in their order, then Target Set 1's 13 columns and 31 Target
 * Sets left empty) and one ListTsa record per server (decision 024's layout).
 */
const OPTIONS = `IPFE,Options,${NET}.0.11,${NET}.0.12,,,19041,,tcpreset,icmpadminprohibited,20000,0,,enabled,9675,3,1,fullmonitoring,500000`;
const TSA1 = `600,${NET}.1.100,,,hash,1,SCTP_AND_TCP,0,5,50,50,disabled,1`;
const EMPTY_TSA = ','.repeat(12);
const FILE = [
  [OPTIONS, TSA1, ...Array<string>(31).fill(EMPTY_TSA)].join(','),
  `IPFE,ListTsa,1,${NET}.1.11,100,,known here`,
  `IPFE,ListTsa,1,${NET}.1.12,100,,new`,
  `IPFE,ListTsa,1,${NET}.1.13,50,,new too`,
  '',
].join('\r\n');

const escaped = (text: string) => text.replaceAll('.', '\\.');

test.describe.configure({ mode: 'serial' });

let oam: string;

test.beforeAll(async () => {
  test.setTimeout(60_000);
  oam = (
    await startOam({
      host: OAM_HOST,
      token: 'e2e-bulk-token-0123456789abcdefghijkl',
      adminPassword: ADMIN_PASSWORD,
    })
  ).url;
  const { http, send } = await adminSession(oam, ADMIN_PASSWORD);
  await send('post', '/api/users', { ...OPERATOR, role: 'operator' });
  await send('post', '/api/xsi-networks', { name: 'xsi-27', cidr: `${NET}.1.0/24` });
  await send('post', '/api/app-servers', { name: 'mp1', addresses: [`${NET}.1.11`] });
  await http.dispose();
});

test.afterAll(async () => {
  await stopAll();
});

test('an operator imports a bulk file of the source written by hand, sees the servers it would create, creates them and commits', async ({
  page,
}) => {
  expect(FILE.split('\r\n')[0]!.split(',')).toHaveLength(435);
  await page.goto(`${oam}/login`);
  await logIn(page, OPERATOR.name, OPERATOR.password);
  await page
    .getByRole('navigation', { name: 'Main menu' })
    .getByRole('link', { name: 'Import' })
    .click();
  await expect(page.getByRole('heading', { name: 'Import' })).toBeVisible();

  // The layout, chosen with the keyboard.
  const layouts = page.getByRole('radiogroup', { name: 'Layout' });
  await layouts.getByRole('radio', { name: 'As the file shows' }).focus();
  await page.keyboard.press('ArrowDown');
  await expect(
    layouts.getByRole('radio', { name: "The source product's bulk file" }),
  ).toBeChecked();
  await page.getByLabel('File to import').setInputFiles({
    name: 'dsr-site.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(FILE),
  });

  // The preview: how the file was read, the servers not known here, each a problem until the
  // operator takes the offer.
  await expect(page.getByRole('region', { name: 'Read as' })).toContainText(
    "The source product's bulk file",
  );
  await expect(page.getByRole('region', { name: 'Read as' })).toContainText('decision 024');
  const offered = page.getByRole('table', { name: 'Application servers the import can create' });
  await expect(offered.getByRole('row')).toHaveCount(3);
  await expect(
    offered.getByRole('row', { name: `${NET}.1.12 ${NET}.1.12 xsi-27 3` }),
  ).toBeVisible();
  await expect(
    offered.getByRole('row', { name: `${NET}.1.13 ${NET}.1.13 xsi-27 4` }),
  ).toBeVisible();
  const problems = page.getByRole('region', { name: 'Problems' }).getByRole('listitem');
  await expect(problems).toHaveText([
    `line 3, column 3 (IpAddress): ${NET}.1.12 is not an application server here: accept the offer to create application server ${NET}.1.12, or add it under Network › Application Servers`,
    `line 4, column 3 (IpAddress): ${NET}.1.13 is not an application server here: accept the offer to create application server ${NET}.1.13, or add it under Network › Application Servers`,
  ]);
  await expect(page.getByRole('button', { name: 'Commit' })).toHaveCount(0);
  const changes = page.getByRole('region', { name: 'What the import changes' });
  await expect(changes.getByRole('row', { name: /^Added Target Set 1 / })).toBeVisible();
  await expectAccessible(page, 'the preview of a source bulk file with servers to create');
  await page.screenshot({ path: 'test-results/import-bulk-offer-1280.png', fullPage: true });
  await page.setViewportSize({ width: 800, height: 800 });
  await page.screenshot({ path: 'test-results/import-bulk-offer-800.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The offer taken with the keyboard: no problem left, the servers among the changes.
  const offer = page.getByRole('checkbox', {
    name: 'Create these 2 application servers with the import (one commit)',
  });
  await offer.focus();
  await page.keyboard.press('Space');
  await expect(offer).toBeChecked();
  await expect(page.getByText('None: the file can be committed.')).toBeVisible();
  for (const server of [`${NET}.1.12`, `${NET}.1.13`]) {
    await expect(
      changes.getByRole('row', {
        name: new RegExp(`^Added Application server ${escaped(server)} `),
      }),
    ).toBeVisible();
  }
  await page.screenshot({ path: 'test-results/import-bulk-accepted-1280.png', fullPage: true });

  await page.getByRole('button', { name: 'Commit' }).click();
  await expect(page.getByText(/^Imported dsr-site\.csv as revision \d+\.$/)).toBeVisible();

  // One revision made all of it: the servers, named after their addresses, and the Target Set.
  await page.getByRole('link', { name: 'Application Servers' }).click();
  for (const [name, address] of [
    ['mp1', `${NET}.1.11`],
    [`${NET}.1.12`, `${NET}.1.12`],
    [`${NET}.1.13`, `${NET}.1.13`],
  ]) {
    await expect(
      page.getByRole('row', {
        name: `Select application server ${name} ${name} ${address} — `,
      }),
    ).toBeVisible();
  }
  await page.getByRole('link', { name: 'Target Sets', exact: true }).click();
  await expect(page.getByRole('table', { name: 'IP list of Target Set 1' })).toContainText(
    `${NET}.1.13`,
  );
  await page.getByRole('link', { name: 'Options' }).click();
  await expect(page.getByRole('combobox', { name: 'SCTP reject option' })).toHaveValue(
    'icmpAdminProhibited',
  );
  await page.screenshot({ path: 'test-results/options-1280.png', fullPage: true });
  await page.setViewportSize({ width: 800, height: 800 });
  await page.screenshot({ path: 'test-results/options-800.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The same layout comes out again, for the source to read back.
  await page.getByRole('link', { name: 'Revisions', exact: true }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export (source bulk file)' }).click();
  expect((await download).suggestedFilename()).toMatch(/^ipfe-source-bulk-r\d+\.csv$/);
});
