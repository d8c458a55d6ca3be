import type { APIRequestContext, Page } from '@playwright/test';
import { expect, logIn, test } from '../support/fixtures';
import { adminSession, startAgent, startOam, stopAll, tempFolder } from '../support/stack';

/**
 * Applied is not served (issue 24): an OAM of its own on 127.62.0.0/16 (no other test uses it)
 * with two real user-space agents, which cannot serve active-active (only the direct path has a
 * BGP speaker). Target Set 2 was saved active-active before the agents were ever heard from (a
 * save is not blocked by agents the OAM does not know yet); Target Set 1's servers run nothing.
 */
const NET = '127.62';
const AGENTS = { A1: `${NET}.0.11`, A2: `${NET}.0.12` } as const;
const TSA1 = `${NET}.0.100`;
const TSA2 = `${NET}.0.101`;
const SERVERS = [`${NET}.1.1`, `${NET}.1.2`];
const TOKEN = 'e2e-serving-token-0123456789abcdefghijklmn';
const ADMIN_PASSWORD = 'e2e-serving-admin-pass';
const OPERATOR = { name: 'olga', password: 'e2e-serving-operator-pass' };
const CANNOT_SERVE = `No IPFE could serve ${TSA1}: only the direct data path serves Active-Active, and IPFE-A1 and IPFE-A2 run the user-space data path`;

test.describe.configure({ mode: 'serial' });

let oam: string;
let admin: APIRequestContext;

async function configure(url: string) {
  const { http, send } = await adminSession(url, ADMIN_PASSWORD);
  const options = await http.get('/api/options');
  await send(
    'put',
    '/api/options',
    {
      ...((await options.json()) as object),
      ipfe: { A1: { address: AGENTS.A1 }, A2: { address: AGENTS.A2 } },
      bgp: { asn: 65010, peers: [{ address: `${NET}.0.254`, asn: 65000 }] },
    },
    options.headers().etag,
  );
  await send('post', '/api/xsi-networks', { name: 'e2e-serving', cidr: `${NET}.0.0/16` });
  for (const [i, address] of SERVERS.entries())
    await send('post', '/api/app-servers', { name: `mp${i + 1}`, addresses: [address] });
  const servers = SERVERS.map((address) => ({ address }));
  await send('post', '/api/target-sets', {
    number: 1,
    family: 'ipv4',
    algorithm: 'hash',
    primary: { address: TSA1 },
    servers,
  });
  await send('post', '/api/target-sets', {
    number: 2,
    family: 'ipv4',
    algorithm: 'hash',
    serving: 'activeActive',
    activeActiveIpfes: ['A1', 'A2'],
    primary: { address: TSA2 },
    servers,
  });
  await send('post', '/api/users', { ...OPERATOR, role: 'operator' });
  return http;
}

const rowOf = (page: Page, n: number) =>
  page
    .getByRole('table', { name: /Target Sets, each with its IP list/ })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${n} IPv4`) }) });

test.beforeAll(async () => {
  test.setTimeout(90_000);
  oam = (await startOam({ host: `${NET}.0.1`, token: TOKEN, adminPassword: ADMIN_PASSWORD })).url;
  admin = await configure(oam);
  await Promise.all(
    (['A1', 'A2'] as const).map((slot) =>
      startAgent({
        slot,
        address: AGENTS[slot],
        stateDir: tempFolder(`ipfe-e2e-serving-${slot}-`),
        token: TOKEN,
      }),
    ),
  );
});

test.afterAll(async () => {
  await admin?.dispose();
  await stopAll();
});

test('the header says a Target Set nobody serves is not served, and shows the active alarms on every page', async ({
  page,
}) => {
  test.setTimeout(60_000);
  await page.goto(`${oam}/login`);
  await logIn(page, OPERATOR.name, OPERATOR.password);
  await expect(page.getByRole('heading', { name: 'Target Sets [View]' })).toBeVisible();

  // Both IPFEs run the revision, and the header does not call that "in sync".
  const sync = page.getByRole('link', { name: '2/2 applied · Target Set 2 not served' });
  await expect(sync).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('link', { name: /IPFEs in sync/ })).toHaveCount(0);

  // The View's state says why, as the agents report it; nothing is green "Enabled" that does not serve.
  await expect(rowOf(page, 2).getByRole('cell').nth(1)).toContainText(
    'Not served' +
      `${TSA2}: Target Set 2 is active-active but nothing is announced: only the direct data path serves it`,
  );
  // Target Set 1 is served by A1, but none of its servers takes a connection.
  await expect(rowOf(page, 1).getByRole('cell').nth(1)).toHaveText(
    'No server available0 of 2 servers take new connections',
    { timeout: 20_000 },
  );
  await expect(page.getByText('Enabled', { exact: true })).toHaveCount(0);

  // The active alarms at their worst severity, on every page: 5002 is critical.
  const alarms = page.getByRole('link', { name: /^\d+ active alarms · \d+ critical$/ });
  await expect(alarms).toBeVisible();
  await page.screenshot({ path: '/tmp/h/not-served-1280.png', fullPage: true });
  await page.setViewportSize({ width: 800, height: 900 });
  await page.screenshot({ path: '/tmp/h/not-served-800.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole('link', { name: 'Options', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Options', level: 1 })).toBeVisible();
  await expect(alarms).toBeVisible();
  await alarms.click();
  await expect(page.getByRole('heading', { name: /Alarms/, level: 1 })).toBeVisible();
  await expect(page.getByRole('main')).toContainText('Address Configuration Error');
});

test('a save that would leave a Target Set Address served by nobody is refused on its field, naming the IPFEs', async ({
  page,
}) => {
  test.setTimeout(60_000);
  await page.goto(`${oam}/login`);
  await logIn(page, OPERATOR.name, OPERATOR.password);
  await expect(page.getByRole('heading', { name: 'Target Sets [View]' })).toBeVisible();
  await expect(page.getByRole('link', { name: /2\/2 applied/ })).toBeVisible({ timeout: 20_000 });
  const revisions = async () =>
    ((await (await admin.get('/api/revisions')).json()) as { total: number }).total;
  const before = await revisions();

  await page.getByRole('radio', { name: 'Select Target Set 1' }).check();
  await page.getByRole('button', { name: 'Edit' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [Edit]' })).toBeVisible();
  const serving = page.getByRole('region', { name: 'Serving' });
  await serving.getByRole('radio', { name: 'Active-Active' }).check();
  const group = serving.getByRole('group', { name: /Active-Active IPFEs/ });
  await group.getByRole('checkbox', { name: 'IPFE-A1' }).check();
  await group.getByRole('checkbox', { name: 'IPFE-A2' }).check();
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(serving.getByText(CANNOT_SERVE)).toBeVisible();
  await page.screenshot({ path: '/tmp/h/cannot-serve.png', fullPage: true });

  // Nothing was committed: Target Set 1 is still served active/standby.
  expect(await revisions()).toBe(before);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(rowOf(page, 1)).toContainText('active IPFE-A1 · standby IPFE-A2');
});
