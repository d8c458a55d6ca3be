import { authFile } from '../support/env';
import { expect, expectAccessible, test } from '../support/fixtures';

test.use({ storageState: authFile('operator') });

/** A row of `table` in the layout of its header in `file`, the named cells filled in. */
function rowOf(file: string, table: string, cells: Record<string, string>) {
  const header = file.split('\r\n').find((line) => line.startsWith(`${table},`))!;
  return header
    .split(',')
    .map((name, i) => (i === 0 ? table : (cells[name] ?? '')))
    .join(',');
}

test('an operator imports our named-column CSV, sees the preview, commits and sees the Target Set', async ({
  page,
  api,
}) => {
  const lab = await api.lab(71);
  const [mp1, mp2, mp3] = lab.servers;
  const { body } = await api.get('/api/target-sets');
  const taken = new Set((body.items as { number: number }[]).map((ts) => ts.number));
  const [number, running, overlapping] = [...Array(32).keys()]
    .map((i) => 32 - i)
    .filter((n) => !taken.has(n));
  // A Target Set that runs already, listing mp2 and mp3.
  await lab.targetSet({
    number: running,
    family: 'ipv4',
    primary: { address: '10.71.1.101' },
    servers: [{ address: mp2!.v4 }, { address: mp3!.v4 }],
  });

  // The operator's file: the running configuration exported, a Target Set added to it, and a
  // column of the source product that this OAM has no field for.
  const exported = await page.request.get('/api/export/source-csv');
  expect(exported.ok()).toBe(true);
  const lines = (await exported.text()).trimEnd().split('\r\n');
  const options = lines.findIndex((line) => line.startsWith('IpfeOption,'));
  lines[options] += ',GratuitousArpType';
  lines[options + 1] += ',request';
  const file = lines.join('\r\n');
  const row = (weight: string) =>
    rowOf(file, 'IpfeListTsa', {
      TsNumber: String(number),
      Family: 'IPv4',
      LoadBalanceAlgorithm: 'Least Load',
      Address: lab.tsa4,
      ActiveIpfe: 'IPFE-A1',
      Server1IpAddress: mp1!.v4,
      Server1Description: 'moved in',
      Server1Weighting: weight,
    });

  await page.goto('/target-sets');
  await page
    .getByRole('navigation', { name: 'Main menu' })
    .getByRole('link', { name: 'Import' })
    .click();
  await expect(page.getByRole('heading', { name: 'Import' })).toBeVisible();
  const chooser = page.getByLabel('File to import');

  // Every problem of the file in one preview: a bad cell, and a row whose IP list partly
  // overlaps the running Target Set's, each named by its line and the column holding the value.
  const badLine = lines.length + 1;
  const overlap = rowOf(file, 'IpfeListTsa', {
    TsNumber: String(overlapping),
    Family: 'IPv4',
    LoadBalanceAlgorithm: 'Hash',
    Address: '10.71.1.102',
    ActiveIpfe: 'IPFE-A1',
    Server1IpAddress: mp1!.v4,
    Server2IpAddress: mp2!.v4,
  });
  await chooser.setInputFiles({
    name: 'bad.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`${file}\r\n${row('heavy')}\r\n${overlap}\r\n`),
  });
  const problems = page.getByRole('region', { name: 'Problems' }).getByRole('listitem');
  await expect(problems).toHaveText([
    `line ${badLine}, column Server1Weighting: Weighting must be a whole number from 0 to 65535, not "heavy"`,
    new RegExp(
      `^line ${badLine + 1}, column Server2IpAddress: The IP list partly overlaps the IP list of Target Set ${running} \\(shared: ${mp2!.v4.replaceAll('.', '\\.')}\\)`,
    ),
  ]);
  await expect(page.getByRole('button', { name: 'Commit' })).toHaveCount(0);
  await expectAccessible(page, 'the preview of a file with a problem');

  await chooser.setInputFiles({
    name: 'site.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`${file}\r\n${row('100')}\r\n`),
  });
  await expect(page.getByText('None: the file can be committed.')).toBeVisible();
  await expect(
    page.getByText('not imported: column GratuitousArpType of IpfeOption'),
  ).toBeVisible();
  const changes = page.getByRole('table', { name: 'What the import changes' });
  await expect(changes.getByRole('row')).toHaveCount(2);
  await expect(
    changes.getByRole('row', { name: new RegExp(`^Added Target Set ${number} `) }),
  ).toBeVisible();

  await expectAccessible(page, 'the preview of a file without problems');

  // Someone commits meanwhile: the import is refused, never merged, and previewed again the
  // file shows that it would remove what they added.
  await api.post('/api/peer-node-groups', { name: 'e2e-71-late', members: ['192.0.2.71'] });
  await page.getByRole('button', { name: 'Commit' }).click();
  const refusal = page.getByRole('alert');
  await expect(refusal).toContainText(
    /The running revision is \d+, not \d+ as when this file was previewed/,
  );
  // Said once, and nothing to press but Preview again.
  await expect(refusal).toHaveText(/^(?!.*nothing was committed.*nothing was committed)/i);
  await expect(page.getByRole('button', { name: 'Commit' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Preview again' }).click();
  // The change would undo the admin's later commit: marked as such.
  await expect(
    changes.getByRole('row', {
      name: /^Removed Peer node group e2e-71-late .*Undoes revision \d+ by admin/,
    }),
  ).toBeVisible();
  await page.screenshot({ path: 'test-results/import-preview-again.png', fullPage: true });

  api.track(`/api/target-sets/${number}`);
  await page.getByRole('button', { name: 'Commit' }).click();
  await expect(page.getByText(/^Imported site\.csv as revision \d+\.$/)).toBeVisible();
  await page.getByRole('link', { name: 'See the Target Sets' }).click();
  await expect(page.getByRole('heading', { name: 'Target Sets [View]' })).toBeVisible();
  await expect(page.getByRole('table', { name: `IP list of Target Set ${number}` })).toContainText(
    mp1!.v4,
  );

  // The same layout comes out of the Revisions page.
  await page.getByRole('link', { name: 'Revisions', exact: true }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export (named-column CSV)' }).click();
  expect((await download).suggestedFilename()).toMatch(/^ipfe-source-r\d+\.csv$/);
});
