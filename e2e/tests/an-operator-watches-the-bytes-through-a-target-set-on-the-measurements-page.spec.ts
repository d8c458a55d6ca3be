import { join } from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { ARTIFACTS } from '../support/env';
import { expect, expectAccessible, logIn, test } from '../support/fixtures';
import {
  adminSession,
  startAgent,
  startNamedService,
  startOam,
  startReporter,
  stopAll,
  tempFolder,
  whoAnswers,
} from '../support/stack';

/**
 * The Measurements page against real processes on the loopback block 127.48.0.0/16 (no other test
 * uses it): an OAM of its own, IPFE agents A1 and A2 on the user-space path, two application
 * servers (a reporter, and a TCP service on port 3868 that echoes each line with its name).
 */
const NET = '127.48';
const OAM_HOST = `${NET}.0.1`;
const AGENTS = { A1: `${NET}.0.11`, A2: `${NET}.0.12` } as const;
const TSA = `${NET}.0.100`;
const PORT = 3868;
const SERVERS = [
  { name: 'mp1', address: `${NET}.1.1` },
  { name: 'mp2', address: `${NET}.1.2` },
];
const TOKEN = 'e2e-measure-token-0123456789abcdefghijklmn';
const ADMIN_PASSWORD = 'e2e-measure-admin-pass';
const OPERATOR = { name: 'mira', password: 'e2e-measure-operator-pass' };
test.describe.configure({ mode: 'serial' });
let oam: string;
let admin: APIRequestContext | undefined;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  oam = (await startOam({ host: OAM_HOST, token: TOKEN, adminPassword: ADMIN_PASSWORD })).url;
  await Promise.all(SERVERS.map((s) => startReporter(s.address)));
  for (const s of SERVERS) await startNamedService(s.name, s.address, PORT);
  await Promise.all(
    (['A1', 'A2'] as const).map((slot) =>
      startAgent({
        slot,
        address: AGENTS[slot],
        stateDir: tempFolder(`ipfe-e2e-measure-${slot}-`),
        token: TOKEN,
      }),
    ),
  );
  const { http, send } = await adminSession(oam, ADMIN_PASSWORD);
  admin = http;
  const options = await http.get('/api/options');
  await send(
    'put',
    '/api/options',
    {
      ...((await options.json()) as Record<string, unknown>),
      ipfe: { A1: { address: AGENTS.A1 }, A2: { address: AGENTS.A2 } },
    },
    options.headers().etag,
  );
  await send('post', '/api/xsi-networks', { name: 'e2e-measure', cidr: `${NET}.0.0/16` });
  for (const s of SERVERS)
    await send('post', '/api/app-servers', { name: s.name, addresses: [s.address] });
  await send('post', '/api/target-sets', {
    family: 'ipv4',
    algorithm: 'hash',
    protocols: 'tcp',
    primary: { address: TSA },
    servers: SERVERS.map((s) => ({ address: s.address })),
  });
  await send('post', '/api/users', { ...OPERATOR, role: 'operator' });
  await expect
    .poll(() => whoAnswers(TSA, PORT, 1_000), { timeout: 30_000, intervals: [300] })
    .toMatch(/^mp[12]$/);
});

test.afterAll(async () => {
  await admin?.dispose();
  await stopAll();
});

test('an operator sends traffic through a Target Set and sees its bytes by the source’s names, charted over the last hour', async ({
  page,
}) => {
  test.setTimeout(90_000);
  for (let i = 0; i < 40; i++) expect(await whoAnswers(TSA, PORT)).toMatch(/^mp[12]$/);

  await page.goto(`${oam}/login`);
  await logIn(page, OPERATOR.name, OPERATOR.password);
  await page.getByRole('link', { name: 'Measurements', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Measurements', level: 1 })).toBeVisible();

  const panel = page.getByRole('region', { name: `Target Set 1 ${TSA}` });
  const table = panel.getByRole('table', { name: 'Measurements of Target Set 1' });
  const row = (name: RegExp) => table.getByRole('row', { name });
  await expect(row(/^Bytes received \(RxTsaBytes\)/)).toContainText(/[1-9][\d,]* bytes/, {
    timeout: 15_000,
  });
  // The user-space path sees its sockets' bytes: no SCTP and no packets are counted.
  await expect(row(/^SCTP bytes received \(RxTsaBytesSctp\)/)).toContainText(
    /not counted\s*not counted/,
  );
  await expect(row(/^Unexpected TCP packets \(TsaUnexpctedTcp\)/)).toContainText('not counted');
  await expect(row(/^Bytes sent to the server \(TxAsBytes\) mp1/)).toContainText(/\d bytes/);
  await expect(panel.getByRole('img', { name: /RxTsaBytesSctp/ })).toHaveCount(0);

  // Once the OAM has two samples of the agents' totals (a step of 10 s apart), the chart shows it.
  const chart = panel.getByRole('img', {
    name: 'Bytes received (RxTsaBytes) per second, Target Set 1',
  });
  await expect(chart).toHaveAccessibleDescription(/^Latest .*, highest [1-9][\d.]* k?B\/s/, {
    timeout: 45_000,
  });
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
  await expectAccessible(page, 'the Measurements page with figures');
  await page.screenshot({ path: join(ARTIFACTS, 'measurements-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 800, height: 800 });
  await expect(chart).toBeVisible();
  await page.screenshot({ path: join(ARTIFACTS, 'measurements-800.png'), fullPage: true });
});
