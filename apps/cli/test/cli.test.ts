import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import {
  leastLoadTargetSet,
  login,
  seedPrerequisites,
  snapshot,
  startApp,
  type Client,
  type TestApp,
} from '../../api/test/helpers.ts';

const BIN = fileURLToPath(new URL('../bin/ipfe.js', import.meta.url));

let t: TestApp;
let admin: Client;
let url: string;
let token: { id: number; secret: string };

/** A real OAM listening on loopback, with a Target Set, and an API token of admin. */
beforeEach(async () => {
  t = await startApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = await login(t.app);
  await seedPrerequisites(admin);
  await admin.post('/api/target-sets', leastLoadTargetSet());
  const created = (await admin.post('/api/users/me/tokens', { name: 'ci' })).json();
  token = { id: created.token.id, secret: created.secret };
});

afterEach(() => t.close());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real CLI as a child process, in the test's folder, with IPFE_URL and IPFE_TOKEN. */
function ipfe(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: t.dir,
        env: {
          PATH: process.env.PATH,
          IPFE_URL: url,
          IPFE_TOKEN: token.secret,
          INIT_CWD: t.dir,
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const file = (name: string) => join(t.dir, name);

/** Sets a value of the YAML file at a path, keeping the rest of the file as it was. */
function editYaml(name: string, path: (string | number)[], value: unknown) {
  const doc = parseDocument(readFileSync(file(name), 'utf8'));
  doc.setIn(path, value);
  writeFileSync(file(name), doc.toString());
}

/** The 1-based line of the first line of the file that matches. */
function lineOf(name: string, pattern: RegExp): number {
  return (
    readFileSync(file(name), 'utf8')
      .split('\n')
      .findIndex((l) => pattern.test(l)) + 1
  );
}

/** The 1-based column of `text` on the first line that holds it. */
function columnOf(name: string, text: string): number {
  const line = readFileSync(file(name), 'utf8')
    .split('\n')
    .find((l) => l.includes(text));
  return (line?.indexOf(text) ?? -1) + 1;
}

const WEIGHT = ['config', 'targetSets', 0, 'servers', 1, 'weight'];

describe('ipfe, the CLI, against a running OAM with an API token', () => {
  it('exports, plans an edit (exit 2), applies it as one revision, then plans no change (exit 0)', async () => {
    const exported = await ipfe(['export', '--out', 'site.yaml']);
    expect(exported).toMatchObject({ code: 0, stderr: 'revision 7 written to site.yaml\n' });
    const stdout = await ipfe(['export']);
    expect(stdout.stdout).toBe(readFileSync(file('site.yaml'), 'utf8'));
    expect(parseDocument(stdout.stdout).toJS()).toEqual((await admin.get('/api/export')).json());

    expect(await ipfe(['plan', 'site.yaml'])).toMatchObject({
      code: 0,
      stdout: 'No changes: site.yaml matches revision 7\n',
    });
    editYaml('site.yaml', WEIGHT, 300);
    const plan = await ipfe(['plan', 'site.yaml']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('Plan of site.yaml against revision 7:\n');
    expect(plan.stdout).toContain('  ~ targetSets.1.servers.1.weight: 100 → 300\n');
    const before = await snapshot(t.app);
    const applied = await ipfe(['apply', 'site.yaml']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied site.yaml: revision 8 (planned against 7)\n');
    expect((await snapshot(t.app)).revisions).toBe(before.revisions + 1);
    const running = (await admin.get('/api/target-sets/1')).json();
    expect(running.servers[1].weight).toBe(300);
    expect(await ipfe(['plan', 'site.yaml'])).toMatchObject({
      code: 0,
      stdout: 'No changes: site.yaml matches revision 8\n',
    });
    expect((await ipfe(['apply', 'site.yaml'])).stdout).toBe(
      'No changes: site.yaml matches revision 8; nothing committed\n',
    );
  });

  it('refuses a stale plan: another change came after it; nothing is committed', async () => {
    await ipfe(['export', '--out', 'site.yaml']);
    editYaml('site.yaml', WEIGHT, 300);
    expect((await ipfe(['plan', 'site.yaml'])).stdout).toContain('against revision 7:');
    expect(
      (await admin.post('/api/xsi-networks', { name: 'late', cidr: '10.7.0.0/16' })).statusCode,
    ).toBe(201);
    const before = await snapshot(t.app);
    const stale = await ipfe(['apply', 'site.yaml', '--based-on', '7']);
    // Its own exit code, so that a pipeline can tell "plan again" from a broken file (exit 1).
    expect(stale.code).toBe(3);
    expect(stale.stderr).toBe(
      'ipfe apply: site.yaml: refused, nothing committed: The running revision is 8, not 7 that this was planned against: plan again\n',
    );
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('allocates the Initiator Port Range of a server the file gives none; a given one is kept and checked', async () => {
    await ipfe(['export', '--out', 'site.yaml']);
    const doc = parseDocument(readFileSync(file('site.yaml'), 'utf8'));
    // mp2 runs with 16896–17407: left out of the file, it keeps it.
    doc.deleteIn(['config', 'appServers', 1, 'initiatorPortRange']);
    doc.addIn(['config', 'appServers'], { name: 'mp4', addresses: ['127.1.1.4'] });
    doc.addIn(['config', 'appServers'], {
      name: 'mp5',
      addresses: ['127.1.1.5'],
      initiatorPortRange: { start: 16384, end: 16895 },
    });
    writeFileSync(file('site.yaml'), doc.toString());

    const before = await snapshot(t.app);
    const taken = await ipfe(['apply', 'site.yaml']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(
      'config.appServers.4.initiatorPortRange: Initiator Port Range is already allocated to mp1: leave it out and a free one is allocated',
    );
    expect(taken.stderr).not.toContain('appServers.3');
    expect(await snapshot(t.app)).toEqual(before);

    editYaml('site.yaml', ['config', 'appServers', 4, 'initiatorPortRange'], {
      start: 18944,
      end: 19455,
    });
    const plan = await ipfe(['plan', 'site.yaml']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/\+ appServers\.mp4.*17920/);
    const applied = await ipfe(['apply', 'site.yaml']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const ranges = Object.fromEntries(
      (await admin.get('/api/app-servers'))
        .json()
        .items.map((s: { name: string; initiatorPortRange: { start: number; end: number } }) => [
          s.name,
          `${s.initiatorPortRange.start}-${s.initiatorPortRange.end}`,
        ]),
    );
    expect(ranges).toEqual({
      mp1: '16384-16895',
      mp2: '16896-17407',
      mp3: '17408-17919',
      mp4: '17920-18431',
      mp5: '18944-19455',
    });
  });

  it('names the file, line and column of bad YAML and of a bad field; nothing is committed', async () => {
    await ipfe(['export', '--out', 'site.yaml']);
    const before = await snapshot(t.app);
    writeFileSync(
      file('broken.yaml'),
      'formatVersion: 1\nconfig:\n  options: {\n  targetSets: [\n',
    );
    const broken = await ipfe(['plan', 'broken.yaml']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^broken\.yaml:\d+:\d+: \S.*\n$/);

    editYaml('site.yaml', WEIGHT, 70000);
    const line = lineOf('site.yaml', /weight: 70000/);
    const bad = await ipfe(['apply', 'site.yaml']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.split('\n')[0]).toMatch(
      new RegExp(`^site\\.yaml:${line}:\\d+: config\\.targetSets\\.0\\.servers\\.1\\.weight: .+`),
    );
    expect(bad.stderr).toContain('site.yaml: 1 problem; nothing would be committed\n');

    editYaml('site.yaml', WEIGHT, 100);
    editYaml('site.yaml', ['config', 'targetSets', 0, 'colour'], 'red');
    const unknown = await ipfe(['plan', 'site.yaml']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.split('\n')[0]).toBe(
      `site.yaml:${lineOf('site.yaml', /colour: red/)}:${columnOf('site.yaml', 'colour')}: config.targetSets.0.colour: colour is not a field here`,
    );
    writeFileSync(
      file('proto.yaml'),
      'formatVersion: 1\n__proto__: { polluted: true }\nconfig: {}\n',
    );
    const proto = await ipfe(['plan', 'proto.yaml']);
    expect(proto.code).toBe(1);
    expect(proto.stderr).toMatch(/^ipfe plan: proto\.yaml: .*__proto__/);
    writeFileSync(file('list.yaml'), '- 1\n- 2\n');
    expect((await ipfe(['plan', 'list.yaml'])).stderr).toMatch(
      /^ipfe plan: list\.yaml: not a config document/,
    );
    expect((await ipfe(['plan', 'missing.yaml'])).stderr).toBe(
      'ipfe plan: missing.yaml: cannot read it (no such file)\n',
    );
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('says the token was revoked, and exits 1', async () => {
    expect((await admin.del(`/api/users/me/tokens/${token.id}`)).statusCode).toBe(204);
    const revoked = await ipfe(['status']);
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toMatch(
      /^ipfe status: API token revoked \(ci, at .+\); create a new one \[http:\/\/127\.0\.0\.1:\d+\/\]\n$/,
    );
    const none = await ipfe(['status'], { IPFE_TOKEN: undefined });
    expect(none).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^ipfe status: no API token: set IPFE_TOKEN/),
    });
    // The page as the GUI's menu names it.
    expect(none.stderr).toContain(
      'create one on the API tokens page of the OAM (menu: API tokens)',
    );
    expect(none.stderr).not.toContain('Users page');
  });

  it("shows each IPFE's desired and applied revision", async () => {
    const status = await ipfe(['status']);
    expect(status.code).toBe(0);
    const lines = status.stdout.split('\n');
    expect(lines[0]).toBe('Running revision 7');
    expect(lines[1]).toMatch(/^IPFE +STATE +DESIRED +APPLIED +ADDRESS +LAST CONTACT +ALARMS$/);
    expect(lines.find((l) => l.startsWith('A1 '))).toMatch(/^A1 +\S+ +(7|-) +- +127\.250\.0\.11 /);
  });

  it('rolls back to a revision as a new one, and refuses one that does not exist', async () => {
    const rolled = await ipfe(['rollback', '6']);
    expect(rolled).toMatchObject({ code: 0, stdout: 'Rolled back to revision 6: revision 8\n' });
    expect((await admin.get('/api/target-sets')).json().items).toEqual([]);
    expect((await ipfe(['rollback', '8'])).stdout).toBe(
      'Revision 8 is the running configuration already; nothing committed\n',
    );
    expect(await ipfe(['rollback', '99'])).toMatchObject({
      code: 1,
      stderr: 'ipfe rollback: Revision 99 does not exist\n',
    });
    expect(await ipfe(['rollback', 'last'])).toMatchObject({
      code: 64,
      stderr: expect.stringMatching(
        /^ipfe rollback: the revision must be a whole number, not "last"\n/,
      ),
    });
  });

  it("imports the source product's CSV: preview, then one commit; a bad cell is named and nothing is committed", async () => {
    const exported = (await admin.get('/api/export/source-csv')).body;
    const lines = exported.split(/\r?\n/);
    // The IpfeListTsa table's header row, then Target Set 1's row.
    const headerAt = lines.findIndex((l) => l.startsWith('IpfeListTsa,'));
    const header = lines[headerAt]!.split(',');
    const row = headerAt + 1;
    const withWeight = (weight: string) => {
      const cells = lines[row]!.split(',');
      cells[header.indexOf('Server2Weighting')] = weight;
      return lines.map((l, i) => (i === row ? cells.join(',') : l)).join('\r\n');
    };
    writeFileSync(file('bad.csv'), withWeight('heavy'));
    const before = await snapshot(t.app);
    const bad = await ipfe(['import', 'bad.csv']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`^bad\\.csv:${row + 1}: Server2Weighting: .+`, 'm'));
    expect(bad.stderr).toMatch(/bad\.csv: 1 problem; nothing committed\n$/);
    expect(await snapshot(t.app)).toEqual(before);

    writeFileSync(file('site.csv'), withWeight('300'));
    const imported = await ipfe(['import', 'site.csv']);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('Import of site.csv against revision 7:\n');
    expect(imported.stdout).toContain('  ~ targetSets.1.servers.1.weight: 100 → 300\n');
    expect(imported.stdout).toContain('Imported site.csv: revision 8\n');
    expect((await admin.get('/api/target-sets/1')).json().servers[1].weight).toBe(300);
    expect((await ipfe(['import', 'site.csv'])).stdout).toBe(
      'No changes: site.csv matches revision 8; nothing committed\n',
    );
  });

  it("imports the source product's own bulk file, creating the servers it names when asked", async () => {
    const byHand = readFileSync(
      new URL('../../api/test/fixtures/source-bulk-by-hand.csv', import.meta.url),
    );
    writeFileSync(file('dsr.csv'), byHand);
    const before = await snapshot(t.app);
    const offered = await ipfe(['import', 'dsr.csv']);
    expect(offered.code).toBe(1);
    expect(offered.stderr).toContain(
      "dsr.csv: read as the source product's bulk file (IPFE Options and ListTsa records, by position)\n",
    );
    expect(offered.stderr).toContain(
      'dsr.csv: application servers not known here, which --create-servers creates with the import:\n  + 127.1.1.11 (127.1.1.11 on xsi1; line 4)\n',
    );
    expect(offered.stderr).toContain(
      '  + 127.1.1.21 (127.1.1.21 on xsi1, 127.1.2.21 on xsi1; line 5)\n',
    );
    expect(offered.stderr).toMatch(
      /^dsr\.csv:4: 3 \(IpAddress\): 127\.1\.1\.11 is not an application server here/m,
    );
    expect(offered.stderr).toMatch(/dsr\.csv: 6 problems; nothing committed\n$/);
    expect(await snapshot(t.app)).toEqual(before);

    const imported = await ipfe(['import', '--format', 'source', '--create-servers', 'dsr.csv']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('created with the import:');
    expect(imported.stdout).toContain('  + appServers.2001-db8--51: {"name":"2001-db8--51"');
    expect(imported.stdout).toMatch(/Imported dsr\.csv: revision \d+\n$/);
    expect((await snapshot(t.app)).revisions).toBe(before.revisions + 1);
    expect((await admin.get('/api/target-sets/5')).json().primary.address).toBe('2001:db8::105');

    expect(await ipfe(['import', '--format', 'xml', 'dsr.csv'])).toMatchObject({
      code: 64,
      stderr: expect.stringMatching(
        /^ipfe import: --format must be one of source, named, not "xml"/,
      ),
    });
  });

  it('refuses a stale import: a commit between its preview and its commit; exit 3, nothing committed by it', async () => {
    writeFileSync(
      file('site.csv'),
      (await admin.get('/api/export/source-csv')).body.replace(',100,', ',300,'),
    );
    // Between the CLI and the OAM, a proxy lets another operator commit once the preview is answered.
    const proxy = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const upstream = await fetch(`${url}${request.url}`, {
        method: request.method,
        headers: Object.fromEntries(
          Object.entries(request.headers).filter(([k]) => k !== 'host' && k !== 'content-length'),
        ) as Record<string, string>,
        body: request.method === 'GET' ? undefined : Buffer.concat(chunks),
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (request.url?.startsWith('/api/import/source-csv/preview')) {
        const late = await admin.post('/api/xsi-networks', { name: 'late', cidr: '10.7.0.0/16' });
        expect(late.statusCode).toBe(201);
      }
      response.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      response.end(body);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const stale = await ipfe(['import', 'site.csv'], { IPFE_URL: proxied });
      expect(stale.stdout).toContain('Import of site.csv against revision 7:');
      expect(stale.code).toBe(3);
      expect(stale.stderr).toMatch(
        /^ipfe import: site\.csv: refused, nothing committed: .*preview it again/m,
      );
      // Only the other operator's commit landed.
      const latest = (await admin.get('/api/revisions')).json();
      expect(latest.total).toBe(8);
      expect((await admin.get('/api/target-sets/1')).json().servers[1].weight).toBe(100);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('answers --help for each command, and refuses unknown options and commands with the usage', async () => {
    for (const command of ['export', 'plan', 'apply', 'status', 'rollback', 'import']) {
      const help = await ipfe([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toMatch(new RegExp(`^usage: ipfe ${command}`));
    }
    const usage = (await ipfe(['--help'])).stdout;
    expect(usage).toMatch(/^usage: ipfe <command>/);
    expect(usage).toContain('3 stale (plan again; nothing committed)');
    const unknown = await ipfe(['plan', 'site.yaml', '--force']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toMatch(/^ipfe plan: Unknown option '--force'/);
    expect((await ipfe(['deploy'])).code).toBe(64);
    expect(await ipfe(['status'], { IPFE_TOKEN: 'ipfe_two words' })).toMatchObject({
      code: 64,
      stderr: expect.stringMatching(/IPFE_TOKEN\) holds spaces/),
    });
    expect((await ipfe(['status'], { IPFE_URL: 'ftp://oam' })).stderr).toMatch(
      /must be an http\(s\) URL/,
    );
  });
});
