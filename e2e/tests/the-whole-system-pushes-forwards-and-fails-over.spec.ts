import { join } from 'node:path';
import type { APIRequestContext, Page } from '@playwright/test';
import { ARTIFACTS } from '../support/env';
import { expect, expectAccessible, logIn, test } from '../support/fixtures';
import {
  adminSession,
  holdConnections,
  startAgent,
  startNamedService,
  startOam,
  startReporter,
  stop,
  stopAll,
  tempFolder,
  whoAnswers,
} from '../support/stack';

/**
 * The whole system with real processes on the loopback block 127.60.0.0/16 (no other test uses
 * it): an OAM of its own, IPFE agents A1 and A2, three application servers (a reporter for the
 * heartbeats, and a TCP service on port 3868 that answers with its own name, so that the test
 * sees which server a connection reached).
 */
const NET = '127.60';
const OAM_HOST = `${NET}.0.1`;
const AGENTS = { A1: `${NET}.0.11`, A2: `${NET}.0.12` } as const;
const TSA = `${NET}.0.100`;
const PORT = 3868;
const SERVERS = [
  { name: 'mp1', address: `${NET}.1.1` },
  { name: 'mp2', address: `${NET}.1.2` },
  { name: 'mp3', address: `${NET}.1.3` },
];
const TOKEN = 'e2e-stack-token-0123456789abcdefghijklmnop';
const ADMIN_PASSWORD = 'e2e-stack-admin-pass';
const OPERATOR = { name: 'otto', password: 'e2e-stack-operator-pass' };

test.describe.configure({ mode: 'serial' });

let oam: string;
let admin: APIRequestContext;
let reporters: Awaited<ReturnType<typeof startReporter>>[] = [];
const stateDirs: Record<keyof typeof AGENTS, string> = { A1: '', A2: '' };
const agents: Partial<Record<keyof typeof AGENTS, Awaited<ReturnType<typeof startAgent>>>> = {};

const startAgentAs = async (slot: keyof typeof AGENTS, token = TOKEN) => {
  agents[slot] = await startAgent({
    slot,
    address: AGENTS[slot],
    stateDir: stateDirs[slot],
    token,
  });
};

/** Who answers `count` new connections to the TSA, one after another. */
async function answers(count: number) {
  const names: (string | null)[] = [];
  for (let i = 0; i < count; i++) names.push(await whoAnswers(TSA, PORT));
  return names;
}

/** Waits until a connection to the TSA is answered by a server (the agent serves it). */
async function servedBy(names: string[], within = 20_000) {
  await expect
    .poll(async () => whoAnswers(TSA, PORT, 1_000), { timeout: within, intervals: [200] })
    .toMatch(new RegExp(`^(${names.join('|')})$`));
}

async function adminApi(url: string) {
  const { http, send } = await adminSession(url, ADMIN_PASSWORD);
  const options = await http.get('/api/options');
  const current = (await options.json()) as Record<string, unknown>;
  await send(
    'put',
    '/api/options',
    {
      ...current,
      ipfe: { A1: { address: AGENTS.A1 }, A2: { address: AGENTS.A2 } },
      // A dead mate is noticed within a second.
      mateIntervalMs: 100,
      mateTimeoutMs: 1000,
    },
    options.headers().etag,
  );
  await send('post', '/api/xsi-networks', { name: 'e2e-stack', cidr: `${NET}.0.0/16` });
  for (const s of SERVERS)
    await send('post', '/api/app-servers', { name: s.name, addresses: [s.address] });
  await send('post', '/api/users', { ...OPERATOR, role: 'operator' });
  return http;
}

const ipfeRow = (page: Page, slot: string) =>
  page
    .getByRole('table', { name: 'IPFE nodes' })
    .getByRole('row', { name: new RegExp(`^IPFE-${slot}`) });
const tsPanel = (page: Page) => page.getByRole('region', { name: /Target Set 1/ });
const pushPanel = (page: Page) => page.getByRole('status', { name: 'Push progress' });

test.beforeAll(async () => {
  test.setTimeout(90_000);
  oam = (await startOam({ host: OAM_HOST, token: TOKEN, adminPassword: ADMIN_PASSWORD })).url;
  reporters = await Promise.all(SERVERS.map((s) => startReporter(s.address)));
  // Load as the servers report it: L = 15, 18 and 16, all within the allowed deviation (5) of
  // the lowest, so that new connections go round-robin.
  reporters[0]!.report({ mps: 20, connections: 10 });
  reporters[1]!.report({ mps: 24, connections: 12 });
  reporters[2]!.report({ mps: 20, connections: 12 });
  for (const s of SERVERS) await startNamedService(s.name, s.address, PORT);
  stateDirs.A1 = tempFolder('ipfe-e2e-a1-');
  stateDirs.A2 = tempFolder('ipfe-e2e-a2-');
  await Promise.all([startAgentAs('A1'), startAgentAs('A2')]);
  admin = await adminApi(oam);
});

test.afterAll(async () => {
  await admin?.dispose();
  await stopAll();
});

test('an operator inserts a Target Set, both IPFEs run it, traffic follows the weights, and the mate takes over when A1 dies', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await page.goto(`${oam}/login`);
  await logIn(page, OPERATOR.name, OPERATOR.password);
  await expect(page.getByRole('link', { name: /2\/2 IPFEs in sync/ })).toBeVisible({
    timeout: 15_000,
  });

  // The operator inserts a Least Load Target Set with the three servers.
  await page.getByRole('link', { name: 'Target Sets', exact: true }).click();
  await page.getByRole('link', { name: 'Insert IPv4' }).click();
  await page
    .getByRole('region', { name: 'Primary Public IP Address' })
    .getByLabel('Address', { exact: true })
    .fill(TSA);
  for (const [i, s] of SERVERS.entries()) {
    if (i > 0) await page.getByRole('button', { name: 'Add server' }).click();
    const address = page.getByLabel(`IP Address, row ${i + 1}`, { exact: true });
    await address.selectOption(s.address);
    // Leaving the field settles its check (and the rows' height) before the next click.
    await address.blur();
  }
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByText(/Target Set 1 saved as revision \d+\./)).toBeVisible();
  const revision = Number(
    /revision (\d+)/.exec((await page.getByText(/saved as revision/).textContent())!)![1],
  );

  // The push progress follows the revision until both IPFEs acknowledged it.
  await expect(pushPanel(page)).toContainText(`Push of revision ${revision}`);
  await expect(pushPanel(page)).toContainText(
    `Every configured IPFE runs revision ${revision} (2/2)`,
    {
      timeout: 15_000,
    },
  );
  await expect(pushPanel(page).getByRole('listitem')).toHaveText([
    'IPFE-A1 synced',
    'IPFE-A2 synced',
  ]);

  // Status shows both synced, A1 serving the TSA, and every server able to take connections.
  await page.getByRole('link', { name: 'Status & Manage', exact: true }).click();
  await expect(ipfeRow(page, 'A1')).toContainText(`synced · r${revision}`);
  await expect(ipfeRow(page, 'A2')).toContainText(`synced · r${revision}`);
  await expect(ipfeRow(page, 'A1')).toContainText('User space data path ·');
  await expect(tsPanel(page)).toContainText('Owner IPFE-A1', { timeout: 10_000 });
  await expect(tsPanel(page)).toContainText('Active bindings 3/3', { timeout: 15_000 });

  // A client connects to the TSA and is answered by one of the listed servers; over a few
  // connections, by all three.
  await servedBy(['mp1', 'mp2', 'mp3']);
  const before = await answers(12);
  expect(new Set(before)).toEqual(new Set(['mp1', 'mp2', 'mp3']));

  // The operator drains mp3: weight 0.
  await page.getByRole('link', { name: 'Target Sets', exact: true }).click();
  await page.getByRole('radio', { name: 'Select Target Set 1' }).check();
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Weighting, row 3').fill('0');
  const preview = page.getByRole('region', { name: 'Change preview' });
  await expect(preview.getByRole('row', { name: /mp3/ })).toContainText('33.3 %0.0 %−33.3 pp');
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(pushPanel(page)).toContainText(
    `Every configured IPFE runs revision ${revision + 1} (2/2)`,
    {
      timeout: 15_000,
    },
  );

  // New connections avoid mp3, and mp1 and mp2 share them.
  await expect
    .poll(async () => (await answers(4)).includes('mp3'), { timeout: 10_000 })
    .toBe(false);
  const after = await answers(24);
  expect(after).not.toContain('mp3');
  expect(after).not.toContain(null);
  expect(new Set(after)).toEqual(new Set(['mp1', 'mp2']));

  // Some clients stay connected: the Status page counts their connections per server.
  const held = await holdConnections(TSA, PORT, 9);
  expect(held).not.toContain('mp3');

  // The Status page: the Least Load picture says why mp3 takes nothing.
  await pushPanel(page).getByRole('button', { name: 'Dismiss push progress' }).click();
  await page.getByRole('link', { name: 'Status & Manage', exact: true }).click();
  const picture = page.getByRole('group', { name: 'Least Load picture of Target Set 1' });
  await expect(picture.getByRole('row', { name: /mp3/ })).toContainText('excludedweight 0');
  await expect(
    picture.getByRole('img', { name: /Least Load picture of Target Set 1/ }),
  ).toBeVisible();
  await expect(tsPanel(page)).toContainText('Active bindings 2/3');
  const open = page.getByRole('img', { name: 'Open connections per server, Target Set 1' });
  const count = (name: string) => held.filter((n) => n === name).length;
  await expect(open).toHaveAccessibleDescription(
    `mp1 127.60.1.1: ${count('mp1')}; mp2 127.60.1.2: ${count('mp2')}; mp3 127.60.1.3: 0`,
    { timeout: 10_000 },
  );
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
  await expectAccessible(page, 'the Status page, live');
  await page.screenshot({ path: join(ARTIFACTS, 'status.png') });

  // A1 crashes: A2 takes the TSA over and raises the mate-heartbeat alarm.
  await stop(agents.A1!, 'SIGKILL');
  await expect(tsPanel(page)).toContainText('Owner IPFE-A2', { timeout: 15_000 });
  await expect(tsPanel(page)).toContainText('standby serving (active IPFE-A1)');
  await expect(ipfeRow(page, 'A2')).toContainText('5012 Signaling Interface Heartbeat Timeout');
  await expect(ipfeRow(page, 'A1')).toContainText('unreachable', { timeout: 10_000 });
  await expect(
    page.getByRole('link', { name: /1\/2 IPFEs in sync · IPFE A1 unreachable/ }),
  ).toBeVisible();
  await servedBy(['mp1', 'mp2']);
  await page.screenshot({ path: join(ARTIFACTS, 'status-failover.png') });

  await page.getByRole('link', { name: 'Alarms', exact: true }).click();
  const active = page.getByRole('table', { name: 'Active alarms' });
  await expect(
    active.getByRole('row', { name: /5012 Signaling Interface Heartbeat Timeout/ }),
  ).toContainText('IPFE-A2');
  await expect(active.getByRole('row', { name: /5151 IPFE Unreachable/ })).toContainText('IPFE-A1');
  await expectAccessible(page, 'the Alarms page with active alarms');

  // A1 comes back: the alarm clears (into the history), A1 is in sync and serves its TSA again.
  await startAgentAs('A1');
  await expect(active.getByRole('row', { name: /5012/ })).toHaveCount(0, { timeout: 15_000 });
  await expect(active.getByRole('row', { name: /5151/ })).toHaveCount(0);
  const history = page.getByRole('table', { name: 'Alarm history' });
  await expect(
    history
      .getByRole('row', { name: /5012 Signaling Interface Heartbeat Timeout/ })
      .filter({ hasText: 'IPFE-A2' }),
  ).toHaveCount(1);

  // mp3 reports itself stressed: the IPFEs raise Backend In Stasis (minor) for it.
  reporters[2]!.report({ state: 'stressed' });
  await expect(active.getByRole('row', { name: /5005 Backend In Stasis/ }).first()).toContainText(
    '127.60.1.3',
    { timeout: 10_000 },
  );
  await page.screenshot({ path: join(ARTIFACTS, 'alarms.png') });
  // Filtered by severity: the minor alarm stays, the critical 5012 and the major 5151 go from both lists.
  await page.getByLabel('Severity').selectOption('minor');
  await expect(active.getByRole('row', { name: /5005/ }).first()).toBeVisible();
  await expect(history.getByRole('row', { name: /5012|5151/ })).toHaveCount(0);
  const main = page.getByRole('main').getByRole('table');
  await expect(main.getByText('major', { exact: true })).toHaveCount(0);
  await expect(main.getByText('critical', { exact: true })).toHaveCount(0);
  await page.getByLabel('Severity').selectOption('major');
  await expect(page.getByRole('heading', { name: 'Active alarms (0)' })).toBeVisible();
  await expect(history.getByRole('row', { name: /5151/ }).first()).toBeVisible();
  await expect(history.getByRole('row', { name: /5012/ })).toHaveCount(0);
  await page.getByLabel('Severity').selectOption('critical');
  await expect(history.getByRole('row', { name: /5012/ }).first()).toBeVisible();
  await page.getByRole('button', { name: 'Show all' }).click();

  await page.getByRole('link', { name: 'Status & Manage', exact: true }).click();
  await expect(ipfeRow(page, 'A1')).toContainText(`synced · r${revision + 1}`, { timeout: 15_000 });
  await expect(tsPanel(page)).toContainText('Owner IPFE-A1', { timeout: 15_000 });
  await expect(page.getByRole('link', { name: /2\/2 IPFEs in sync/ })).toBeVisible();
});

test('a push that an agent rejects shows rejected with its message, and the other IPFE stays synced', async ({
  page,
}) => {
  test.setTimeout(90_000);
  // A1 comes back with a token that is not the deployment's.
  await stop(agents.A1!, 'SIGTERM');
  await startAgentAs('A1', 'a-token-that-is-not-the-deployment-token-42');

  await page.goto(`${oam}/login`);
  await logIn(page, OPERATOR.name, OPERATOR.password);
  await page.getByRole('link', { name: 'Target Sets', exact: true }).click();
  await page.getByRole('radio', { name: 'Select Target Set 1' }).check();
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Weighting, row 3').fill('100');
  await page.getByRole('button', { name: 'Apply' }).click();
  const saved = page.getByText(/Target Set 1 saved as revision \d+\./);
  await expect(saved).toBeVisible();
  const revision = Number(/revision (\d+)/.exec((await saved.textContent())!)![1]);

  await expect(pushPanel(page)).toContainText(`IPFE A1 rejected revision ${revision}`, {
    timeout: 15_000,
  });
  const items = pushPanel(page).getByRole('listitem');
  await expect(items.filter({ hasText: 'IPFE-A1' })).toContainText(
    'rejectedThe agent refused the deployment token',
  );
  await expect(items.filter({ hasText: 'IPFE-A2' })).toContainText('synced', { timeout: 10_000 });
  await expect(
    page.getByRole('link', { name: /1\/2 IPFEs in sync · IPFE A1 rejected/ }),
  ).toBeVisible();
  await expectAccessible(page, 'the Edit page with the push progress');
  await page.screenshot({ path: join(ARTIFACTS, 'push-rejected.png') });

  await page.getByRole('link', { name: /1\/2 IPFEs in sync/ }).click();
  await expect(page.getByRole('heading', { name: 'Status & Manage', level: 1 })).toBeVisible();
  await expect(ipfeRow(page, 'A1')).toContainText(`rejected · r${revision}`);
  await expect(ipfeRow(page, 'A1')).toContainText('The agent refused the deployment token');
  await expect(ipfeRow(page, 'A2')).toContainText(`synced · r${revision}`);
});
