import { authFile } from '../support/env';
import { ConfigApi, expect, expectAccessible, test } from '../support/fixtures';

test.use({ storageState: authFile('admin') });

test.afterAll(async () => {
  const api = await ConfigApi.open(process.env.E2E_BASE_URL!);
  await api.put('/api/options/snmp-traps', () => ({ destinations: [] }));
  await api.cleanup();
});

test('an admin adds SNMP trap destinations on the Options page; their secrets are never shown again', async ({
  page,
}) => {
  await page.goto('/options');
  const traps = page.getByRole('form', { name: 'SNMP traps' });
  await expect(traps.getByLabel('SNMPv3 engine ID')).toHaveText(/^80007ed905[0-9a-f]{16}$/);

  await traps.getByRole('button', { name: 'Add trap destination' }).click();
  const first = traps.getByRole('group', { name: 'Trap destination 1' });
  await first.getByLabel(/^Address/).fill('manager');
  await first.getByLabel(/^Address/).blur();
  await expect(
    first.getByText('Trap destination address must be an IPv4 or IPv6 address'),
  ).toBeVisible();
  await first.getByLabel(/^Address/).fill('127.0.0.1');
  await first.getByLabel(/^UDP port/).fill('16299');
  await first.getByLabel(/^Community/).fill('e2e-community');

  await traps.getByRole('button', { name: 'Add trap destination' }).click();
  const second = traps.getByRole('group', { name: 'Trap destination 2' });
  await second.getByLabel(/^Address/).fill('::1');
  await second.getByLabel(/^UDP port/).fill('16299');
  await second.getByLabel(/^SNMP version/).selectOption('v3');
  await second.getByLabel(/^User/).fill('e2e-nms');
  await second.getByLabel(/^Auth key/).fill('e2e-auth-key');
  await second.getByLabel(/^Privacy key/).fill('e2e-priv-key');
  await traps.getByRole('button', { name: 'Save SNMP traps' }).click();
  await expect(traps.getByText('SNMP trap destinations saved: 2')).toBeVisible();

  await page.reload();
  await expect(first.getByLabel(/^Address/)).toHaveValue('127.0.0.1');
  for (const secret of [
    first.getByLabel(/^Community/),
    second.getByLabel(/^Auth key/),
    second.getByLabel(/^Privacy key/),
  ]) {
    await expect(secret).toHaveValue('');
    await expect(secret).toHaveAttribute('placeholder', 'set (leave empty to keep)');
  }
  await expect(page.getByText('e2e-community')).toHaveCount(0);
  await expectAccessible(page, '/options with SNMP trap destinations');
});
