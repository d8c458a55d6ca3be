import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { underiveTargetSet } from '@ipfe/schema';
import { addUser, leastLoadTargetSet, login, snapshot, startApp, type Client } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp({ seed: true });

/** What a migrating operator brings: the source product's two tables, a column we do not take. */
const SOURCE_FILE = [
  'IpfeOption,IpfeA1Address,IpfeA1AgentPort,IpfeA2Address,IpfeA2AgentPort,IpfeB1Address,IpfeB1AgentPort,IpfeB2Address,IpfeB2AgentPort,StateSyncPort,StateSyncIntervalMs,StateSyncTimeoutMs,RejectOption,ForwardedPorts,MonitoringProtocol,MonitoringPort,ConnectTimeout,ConnectTryInterval,LeastLoadThreshold,ImbalanceThreshold,GratuitousArpType',
  'IpfeOption,127.250.0.11,8701,127.250.0.12,8701,,,,,19041,100,3000,TCP Reset,3868 3869,Heartbeat,9675,3,1,0,20,request',
  'IpfeListTsa,TsNumber,Family,Protocols,Disable,InitiatorConnectionSupport,DeleteAge,LoadBalanceAlgorithm,MpsFactor,ConnectionCountFactor,AllowedDeviation,PeerNodeAwareLeastLoad,PeerNodeGroupDistributionThreshold,Address,ActiveIpfe,SecondaryAddress,SecondaryActiveIpfe,Server1IpAddress,Server1SecondaryIpAddress,Server1Description,Server1Weighting,Server2IpAddress,Server2SecondaryIpAddress,Server2Description,Server2Weighting',
  'IpfeListTsa,7,IPv4,TCP,No,No,900,Least Load,1,2,5,Yes,1,127.1.0.107,IPFE-A2,,,127.1.1.1,,east rack,100,127.1.1.2,,,50',
  'IpfeListTsa,8,IPv6,Both,No,No,600,Hash,30,20,5,No,0,2001:db8::108,IPFE-A1,,,2001:db8::3,,,100,,,,',
].join('\r\n');

const csv = (client: Client, url: string, body: string, type = 'text/csv') =>
  client.request({ method: 'POST', url, payload: body, headers: { 'content-type': type } });

const preview = (body: string, client = admin) =>
  csv(client, '/api/import/source-csv/preview', body);

const commit = (body: string, basedOn: number, client = admin) =>
  csv(client, `/api/import/source-csv?basedOn=${basedOn}`, body);

const problemsOf = (response: LightMyRequestResponse) =>
  (response.json() as { problems: { path: string; message: string }[] }).problems.map(
    (p) => `${p.path}: ${p.message}`,
  );

/** The source file with one cell replaced: `row` counts from the first line (1). */
function withCell(row: number, column: string, value: string, file = SOURCE_FILE) {
  const lines = file.split('\r\n');
  const table = lines[row - 1]!.split(',')[0];
  // A table's first row is its header.
  const header = lines.find((l) => l.split(',')[0] === table)!;
  const at = header.split(',').indexOf(column);
  const cells = lines[row - 1]!.split(',');
  cells[at] = value;
  lines[row - 1] = cells.join(',');
  return lines.join('\r\n');
}

describe("importing the source product's CSV", () => {
  it('previews the changes against the running revision and commits nothing', async () => {
    const before = await snapshot(t.app);
    const response = await preview(SOURCE_FILE);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.basedOn).toBe(before.revisions);
    expect(body.problems).toEqual([]);
    expect(body.notImported).toEqual([
      {
        table: 'IpfeOption',
        column: 'GratuitousArpType',
        line: 1,
        message: 'not imported: column GratuitousArpType of IpfeOption',
      },
    ]);
    expect(body.changes.added.map((a: { path: string }) => a.path)).toEqual([
      'options.forwardedPorts.1',
      'targetSets.7',
      'targetSets.8',
    ]);
    expect(body.changes.added[0].value).toBe(3869);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('marks, on a second preview, a change that undoes what another operator committed since', async () => {
    const first = (await preview(SOURCE_FILE)).json();
    expect((await commit(SOURCE_FILE, first.basedOn)).statusCode).toBe(201);
    // The file is previewed again (it runs now); then olivia changes Target Set 7's Delete Age.
    const again = (await preview(SOURCE_FILE)).json();
    expect(again.changes).toEqual({ added: [], removed: [], changed: [] });
    await addUser(t.app, 'olivia', 'operator');
    const olivia = await login(t.app, 'olivia', 'password-123');
    const { warnings, owner, activeBindings, notForwarded, notServed, ...ts7 } = (
      await olivia.get('/api/target-sets/7')
    ).json();
    void [warnings, owner, activeBindings, notForwarded, notServed];
    const edited = await olivia.edit('/api/target-sets/7', {
      ...underiveTargetSet(ts7),
      deleteAgeSeconds: 1200,
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const revision = Number(edited.headers['x-ipfe-revision']);

    const marked = await csv(
      admin,
      `/api/import/source-csv/preview?since=${again.basedOn}`,
      SOURCE_FILE,
    );
    expect(marked.statusCode).toBe(200);
    expect(marked.json().changes.changed).toEqual([
      { path: 'targetSets.7.deleteAgeSeconds', old: 1200, new: 900 },
    ]);
    expect(marked.json().overwrites).toEqual([
      { path: 'targetSets.7.deleteAgeSeconds', revision, author: 'olivia' },
    ]);
    // Without since, or by the operator who made the edit, nothing is marked.
    expect((await preview(SOURCE_FILE)).json().overwrites).toEqual([]);
    const own = await csv(
      olivia,
      `/api/import/source-csv/preview?since=${again.basedOn}`,
      SOURCE_FILE,
    );
    expect(own.json().overwrites).toEqual([]);
    const ahead = await csv(
      admin,
      `/api/import/source-csv/preview?since=${revision + 1}`,
      SOURCE_FILE,
    );
    expect(ahead.statusCode).toBe(400);
  });

  it('commits the file as one revision, and its Target Sets are in the list', async () => {
    const { basedOn } = (await preview(SOURCE_FILE)).json();
    const response = await commit(SOURCE_FILE, basedOn);
    expect(response.statusCode).toBe(201);
    expect(response.headers['x-ipfe-revision']).toBe(String(basedOn + 1));
    expect(response.json()).toMatchObject({
      number: basedOn + 1,
      author: 'admin',
      summary: "Import of the source product's CSV",
    });
    const list = (await admin.get('/api/target-sets')).json().items;
    expect(list.map((ts: { number: number }) => ts.number)).toEqual([7, 8]);
    const seven = (await admin.get('/api/target-sets/7')).json();
    // Fm / Fc are normalized on commit with Least Load, as on the Insert page.
    expect(seven.leastLoad).toMatchObject({ mpsFactor: 33, connectionCountFactor: 67 });
    expect(seven.primary).toMatchObject({ address: '127.1.0.107', activeIpfe: 'A2' });
    expect(seven.servers.map((s: { description: string }) => s.description)).toEqual([
      'east rack',
      '',
    ]);
    const eight = (await admin.get('/api/target-sets/8')).json();
    expect(eight).toMatchObject({
      family: 'ipv6',
      algorithm: 'hash',
      leastLoad: { mpsFactor: 30 },
    });
    expect((await admin.get('/api/options')).json().forwardedPorts).toEqual([3868, 3869]);
    // The tables absent from the file (networks, servers) are kept as they run.
    expect((await admin.get('/api/app-servers')).json().items).toHaveLength(3);
  });

  it('refuses a basedOn that is no longer the running revision with 409, never merging', async () => {
    const { basedOn } = (await preview(SOURCE_FILE)).json();
    await admin.post('/api/target-sets', leastLoadTargetSet());
    const before = await snapshot(t.app);
    const response = await commit(SOURCE_FILE, basedOn);
    expect(response.statusCode).toBe(409);
    expect(response.json().error.message).toBe(
      `The running revision is ${basedOn + 1}, not ${basedOn} as when this file was previewed; preview it again (nothing was committed)`,
    );
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('takes the file as text/csv with a charset, or as text/plain', async () => {
    for (const type of ['text/csv; charset=utf-8', 'text/plain']) {
      const response = await csv(admin, '/api/import/source-csv/preview', SOURCE_FILE, type);
      expect(response.statusCode, type).toBe(200);
      expect(response.json().problems, type).toEqual([]);
    }
  });

  it('needs basedOn', async () => {
    const response = await csv(admin, '/api/import/source-csv', SOURCE_FILE);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.fields[0].path).toBe('basedOn');
  });

  it('lets operators import, and viewers export but neither preview nor import', async () => {
    await addUser(t.app, 'olivia', 'operator');
    await addUser(t.app, 'victor', 'viewer');
    const operator = await login(t.app, 'olivia', 'password-123');
    const viewer = await login(t.app, 'victor', 'password-123');
    expect((await preview(SOURCE_FILE, operator)).statusCode).toBe(200);
    expect((await preview(SOURCE_FILE, viewer)).statusCode).toBe(403);
    const before = await snapshot(t.app);
    expect((await commit(SOURCE_FILE, before.revisions, viewer)).statusCode).toBe(403);
    expect(await snapshot(t.app)).toEqual(before);
    const exported = await viewer.get('/api/export/source-csv');
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toBe('text/csv; charset=utf-8');
  });
});

describe('export then import is lossless', () => {
  async function richConfiguration() {
    await admin.edit('/api/options', {
      ipfe: {
        A1: { address: '127.250.0.11' },
        A2: { address: '127.250.0.12', agentPort: 9702 },
        B1: { address: '2001:db8:ff::1' },
      },
      tcpRejectOption: 'drop',
      forwardedPorts: [3868, 3869, 5868],
      leastLoadThreshold: 250,
      imbalanceThresholdPct: 35,
    });
    await admin.post('/api/xsi-networks', { name: 'xsi2', cidr: '127.2.0.0/16' });
    await admin.post('/api/app-servers', { name: 'mp4', addresses: ['127.1.1.4', '127.2.1.4'] });
    await admin.post('/api/app-servers', { name: 'mp5', addresses: ['127.1.1.5', '127.2.1.5'] });
    await admin.post('/api/peer-node-groups', {
      name: 'east',
      members: ['10.1.0.0/16', '192.0.2.7', '2001:db8:1::/48'],
    });
    const created = [
      await admin.post('/api/target-sets', {
        ...leastLoadTargetSet(),
        number: 3,
        protocols: 'sctp',
        deleteAgeSeconds: 1200,
        initiatorSupport: true,
        leastLoad: {
          mpsFactor: 1,
          connectionCountFactor: 2,
          allowedDeviation: 9,
          peerNodeAware: false,
          peerNodeThreshold: 4,
        },
        primary: { address: '127.1.0.103', activeIpfe: 'A2' },
        secondary: { address: '127.2.0.103', activeIpfe: 'A1' },
        servers: [
          {
            address: '127.1.1.4',
            secondaryAddress: '127.2.1.4',
            description: 'rack A. row 2',
            weight: 7,
          },
          { address: '127.1.1.5', secondaryAddress: '127.2.1.5', weight: 0 },
        ],
      }),
      await admin.post('/api/target-sets', {
        family: 'ipv6',
        number: 12,
        algorithm: 'hash',
        disabled: true,
        leastLoad: { mpsFactor: 0, connectionCountFactor: 0 },
        primary: { address: '2001:db8::12', activeIpfe: 'B1' },
        servers: [
          { address: '2001:db8::1', description: '  spaced  ' },
          { address: '2001:db8::2' },
        ],
      }),
      await admin.post('/api/target-sets', leastLoadTargetSet({ number: 1 })),
    ];
    for (const response of created) expect(response.statusCode, response.body).toBe(201);
  }

  it('a rich configuration, exported and imported again, is no change', async () => {
    await richConfiguration();
    const exported = await admin.get('/api/export/source-csv');
    expect(exported.statusCode).toBe(200);
    const revision = (await snapshot(t.app)).revisions;
    expect(exported.headers['content-disposition']).toBe(
      `attachment; filename="ipfe-source-r${revision}.csv"`,
    );
    const previewed = (await preview(exported.body)).json();
    expect(previewed).toEqual({
      basedOn: revision,
      format: 'named',
      changes: { added: [], removed: [], changed: [] },
      overwrites: [],
      problems: [],
      notImported: [],
      serversToCreate: [],
      createServers: false,
      notes: [],
    });
    const before = await snapshot(t.app);
    const response = await commit(exported.body, revision);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-ipfe-unchanged']).toBe('true');
    expect(response.json().number).toBe(revision);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('imported into an empty OAM, it gives the identical configuration', async () => {
    await richConfiguration();
    const exported = (await admin.get('/api/export/source-csv')).body;
    const other = await startApp();
    try {
      const client = await login(other.app);
      const response = await commit(exported, 0, client);
      expect(response.statusCode, response.body).toBe(201);
      expect(await other.app.configRepository.current()).toEqual(
        await t.app.configRepository.current(),
      );
      expect(response.json().sha256).toBe((await t.app.configRepository.latestInfo())!.sha256);
    } finally {
      await other.close();
    }
  });

  it('exports an older revision by number, and answers 404 for one that does not exist', async () => {
    const first = await admin.get('/api/export/source-csv?revision=1');
    expect(first.statusCode).toBe(200);
    expect(first.body).not.toContain('IpfeXsiNetwork,xsi1');
    const missing = await admin.get('/api/export/source-csv?revision=99');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.message).toBe('Revision 99 does not exist');
  });
});

describe('a bad file is refused with every problem named, and commits nothing', () => {
  async function refused(file: string) {
    const before = await snapshot(t.app);
    const previewed = await preview(file);
    expect(previewed.statusCode).toBe(200);
    const response = await commit(file, previewed.json().basedOn);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION');
    expect(response.json().error.message).toMatch(/^Nothing was committed: /);
    expect(await snapshot(t.app)).toEqual(before);
    return problemsOf(previewed);
  }

  it('names a table it does not know', async () => {
    const file = SOURCE_FILE.replace('IpfeListTsa,8,', 'IpfeListTSA2,8,');
    expect(await refused(file)).toEqual([
      'line 5: "IpfeListTSA2" is not a table this import knows: the first cell names the record\'s table (IpfeOption, IpfeXsiNetwork, IpfeAppServer, IpfePeerNodeGroup, IpfeListTsa)',
    ]);
  });

  it('names the line and column of a bad value', async () => {
    const file = withCell(4, 'Server2Weighting', '70000');
    expect(await refused(withCell(4, 'Disable', 'maybe', file))).toEqual([
      'line 4, column Disable: Disable must be Yes or No, not "maybe"',
      'line 4, column Server2Weighting: Weighting must be a whole number from 0 to 65535, not "70000"',
    ]);
  });

  it('reports every problem of a file in one preview: cells and the rules between rows', async () => {
    // Line 5's cell is refused, and line 6 (a new Target Set 9) partly overlaps Target Set 7.
    const overlapping =
      'IpfeListTsa,9,IPv4,TCP,No,No,600,Hash,1,2,5,No,1,127.1.0.109,IPFE-A1,,,127.1.1.3,,,100,127.1.1.2,,,100';
    const file = `${withCell(5, 'Disable', 'maybe')}\r\n${overlapping}`;
    expect(await refused(file)).toEqual([
      'line 5, column Disable: Disable must be Yes or No, not "maybe"',
      expect.stringMatching(
        /^line 4, column Server2IpAddress: The IP list partly overlaps the IP list of Target Set 9 \(shared: 127\.1\.1\.2\)/,
      ),
      expect.stringMatching(
        /^line 6, column Server2IpAddress: The IP list partly overlaps the IP list of Target Set 7 \(shared: 127\.1\.1\.2\)/,
      ),
    ]);
  });

  it('reports a rule broken by one row on that row only, at the cell of the shared server', async () => {
    const { basedOn } = (await preview(SOURCE_FILE)).json();
    expect((await commit(SOURCE_FILE, basedOn)).statusCode).toBe(201);
    // Target Sets 7 and 8 run as the file has them; the new row 9 overlaps 7.
    const overlapping =
      'IpfeListTsa,9,IPv4,TCP,No,No,600,Hash,1,2,5,No,1,127.1.0.109,IPFE-A1,,,127.1.1.3,,,100,127.1.1.2,,,100';
    expect(await refused(`${SOURCE_FILE}\r\n${overlapping}`)).toEqual([
      'line 6, column Server2IpAddress: The IP list partly overlaps the IP list of Target Set 7 (shared: 127.1.1.2); two lists must be identical or disjoint',
    ]);
  });

  it('names a value the rules between entities refuse, at its cell', async () => {
    expect(await refused(withCell(5, 'Server1IpAddress', '2001:db8::9'))).toEqual([
      expect.stringMatching(/^line 5, column Server1IpAddress: .*2001:db8::9/),
    ]);
  });

  it('names missing columns', async () => {
    const file = SOURCE_FILE.replace(',DeleteAge,', ',')
      .replace(',900,', ',')
      .replace(',600,', ',');
    expect(await refused(file)).toEqual([
      'line 3, column DeleteAge: The IpfeListTsa header has no column DeleteAge',
    ]);
  });

  it('names a Target Set listed twice', async () => {
    const file = SOURCE_FILE.replace('IpfeListTsa,8,', 'IpfeListTsa,7,');
    expect(await refused(file)).toEqual([
      'line 5, column TsNumber: Target Set 7 is on line 4 already',
    ]);
  });

  it('names what a row that stops after its table name lacks', async () => {
    expect(await refused(`${SOURCE_FILE}\r\nIpfeListTsa`)).toEqual([
      'line 6, column TsNumber: Target Set number is required',
      'line 6, column Family: Family is required',
      'line 6, column Address: Primary Public IP Address is required',
      'line 6, column Server1IpAddress: The Target Set IP List needs at least one server',
    ]);
  });

  it('reads no more rows of a table than the configuration holds', async () => {
    const networks = Array.from({ length: 40 }, (_, i) => `IpfeXsiNetwork,n${i},10.${i}.0.0/16`);
    const file = [SOURCE_FILE, 'IpfeXsiNetwork,Name,Network', ...networks].join('\r\n');
    expect(await refused(file)).toEqual([
      'line 23: IpfeXsiNetwork holds at most 16 rows: this is one more (the rows after it are not read)',
    ]);
  });

  it('refuses a header of mostly unknown columns rather than listing them all', async () => {
    const columns = Array.from({ length: 101 }, (_, i) => `Extra${i}`).join(',');
    const file = SOURCE_FILE.replace('ImbalanceThreshold,', `ImbalanceThreshold,${columns},`);
    expect(await refused(file)).toEqual([
      "line 1: 102 columns of this IpfeOption header are unknown to this import (at most 100 are listed as not imported): is this the source product's export?",
    ]);
  });

  it('names a CSV syntax error with its line', async () => {
    const file = SOURCE_FILE.replace('east rack', 'east "rack');
    expect(await refused(file)).toEqual([
      expect.stringMatching(/^line 4: The file is not valid CSV: /),
    ]);
  });

  it('says so of an empty file', async () => {
    expect(await refused('\r\n\r\n')).toEqual(['the file: The file has no records']);
  });

  it('refuses a file over the size limit with 413, naming the limit', async () => {
    const before = await snapshot(t.app);
    const huge = `${SOURCE_FILE}\r\n${'IpfeListTsa,9\r\n'.repeat(80_000)}`;
    for (const response of [await preview(huge), await commit(huge, before.revisions)]) {
      expect(response.statusCode).toBe(413);
      expect(response.json().error).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        message: 'The CSV file is larger than 1 MiB (1048576 bytes), the most an import takes',
      });
    }
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('says how to send the file when the body is JSON', async () => {
    const response = await csv(
      admin,
      '/api/import/source-csv/preview',
      '{"a":1}',
      'application/json',
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(
      /Send the CSV file as the body, with Content-Type: text\/csv/,
    );
  });
});

/** The source product's own bulk file, written by hand from SOURCE-FACTS.md (decision 024). */
const BY_HAND = readFileSync(
  new URL('./fixtures/source-bulk-by-hand.csv', import.meta.url),
  'utf8',
);

describe("importing the source product's own bulk file", () => {
  /** The seeded OAM lacks the IPFEs B1, B2 and the servers the file's IP lists add. */
  const NEW_SERVERS = ['127.1.1.11', '127.1.1.21', '127.1.1.22', '2001-db8--51'];

  it('previews it, naming the addresses not known here and offering to create them', async () => {
    const before = await snapshot(t.app);
    const response = await preview(BY_HAND);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.format).toBe('source');
    expect(body.createServers).toBe(false);
    expect(body.serversToCreate.map((s: { name: string }) => s.name)).toEqual(NEW_SERVERS);
    expect(body.serversToCreate[1]).toEqual({
      name: '127.1.1.21',
      addresses: ['127.1.1.21', '127.1.2.21'],
      xsiNetworks: ['xsi1', 'xsi1'],
      lines: [5],
    });
    expect(problemsOf(response)).toContain(
      'line 4, column 3 (IpAddress): 127.1.1.11 is not an application server here: accept the offer to create application server 127.1.1.11, or add it under Network › Application Servers',
    );
    expect(body.problems).toHaveLength(6);
    // The changes are shown before the offer is taken.
    expect(body.changes.added.map((a: { path: string }) => a.path)).toEqual(
      expect.arrayContaining(['targetSets.1', 'targetSets.2', 'targetSets.5']),
    );
    expect(body.notes).toEqual([expect.stringMatching(/IpfeListTsa.*decision 024/)]);
    expect(body.notImported.map((n: { column: string }) => n.column)).toEqual([
      'StateSyncReconnectS',
    ]);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('commits it with the servers the operator accepts to create, in one revision', async () => {
    const accepted = await csv(admin, '/api/import/source-csv/preview?createServers=true', BY_HAND);
    expect(accepted.statusCode).toBe(200);
    const body = accepted.json();
    expect(body.problems).toEqual([]);
    expect(body.createServers).toBe(true);
    expect(body.changes.added.map((a: { path: string }) => a.path)).toEqual(
      expect.arrayContaining(NEW_SERVERS.map((name) => `appServers.${name}`)),
    );
    // Without the offer taken the commit is refused, and nothing changes.
    const before = await snapshot(t.app);
    const refused = await commit(BY_HAND, body.basedOn);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toMatch(/^Nothing was committed: line 4, column 3/);
    expect(await snapshot(t.app)).toEqual(before);

    const response = await csv(
      admin,
      `/api/import/source-csv?basedOn=${body.basedOn}&createServers=true`,
      BY_HAND,
    );
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({
      number: before.revisions + 1,
      summary: "Import of the source product's bulk file",
    });
    expect((await snapshot(t.app)).revisions).toBe(before.revisions + 1);
    const servers = (await admin.get('/api/app-servers')).json().items;
    expect(servers.map((s: { name: string }) => s.name)).toEqual(
      expect.arrayContaining(['mp1', ...NEW_SERVERS]),
    );
    const two = (await admin.get('/api/target-sets/2')).json();
    expect(two).toMatchObject({
      protocols: 'both',
      algorithm: 'hash',
      primary: { address: '127.1.0.102', activeIpfe: 'A2' },
      secondary: { address: '127.1.0.122', activeIpfe: 'A1' },
    });
    expect(two.servers.map((s: { appServer: string }) => s.appServer)).toEqual([
      '127.1.1.21',
      '127.1.1.22',
    ]);
    expect((await admin.get('/api/options')).json()).toMatchObject({
      ipfe: { B1: { address: '127.250.0.13' }, B2: { address: '127.250.0.14' } },
      sctpRejectOption: 'drop',
      packetRateLimitPps: 500000,
      accounting: true,
    });
  });

  it('exports the source layout, which imports back as no change', async () => {
    const accepted = (
      await csv(admin, '/api/import/source-csv/preview?createServers=true', BY_HAND)
    ).json();
    expect(
      (
        await csv(
          admin,
          `/api/import/source-csv?basedOn=${accepted.basedOn}&createServers=true`,
          BY_HAND,
        )
      ).statusCode,
    ).toBe(201);
    const exported = await admin.get('/api/export/source-csv?format=source');
    expect(exported.statusCode).toBe(200);
    const revision = (await snapshot(t.app)).revisions;
    expect(exported.headers['content-disposition']).toBe(
      `attachment; filename="ipfe-source-bulk-r${revision}.csv"`,
    );
    const records = exported.body.trimEnd().split('\r\n');
    expect(records[0]!.split(',')).toHaveLength(435);
    expect(records[0]!.startsWith('IPFE,Options,127.250.0.11,127.250.0.12,')).toBe(true);
    expect(records).toContain('IPFE,ListTsa,1,127.1.1.1,100,,rack A');
    const again = (await preview(exported.body)).json();
    expect(again).toMatchObject({
      format: 'source',
      changes: { added: [], removed: [], changed: [] },
      problems: [],
      serversToCreate: [],
      notImported: [],
    });
    const before = await snapshot(t.app);
    const response = await commit(exported.body, revision);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-ipfe-unchanged']).toBe('true');
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('imports its own export into an OAM that has only the XSI networks, creating the servers', async () => {
    await admin.post('/api/target-sets', leastLoadTargetSet());
    const exported = (await admin.get('/api/export/source-csv?format=source')).body;
    const other = await startApp();
    try {
      const client = await login(other.app);
      await client.post('/api/xsi-networks', { name: 'xsi1', cidr: '127.1.0.0/16' });
      const response = await csv(
        client,
        '/api/import/source-csv?basedOn=1&createServers=true',
        exported,
      );
      expect(response.statusCode, response.body).toBe(201);
      const ts = (await client.get('/api/target-sets/1')).json();
      const mine = (await admin.get('/api/target-sets/1')).json();
      expect(ts.servers.map((s: { address: string }) => s.address)).toEqual(
        mine.servers.map((s: { address: string }) => s.address),
      );
      expect(ts.servers.map((s: { appServer: string }) => s.appServer)).toEqual([
        '127.1.1.1',
        '127.1.1.2',
        '127.1.1.3',
      ]);
      expect(ts.primary).toEqual(mine.primary);
    } finally {
      await other.close();
    }
  });

  it('reads a file as asked: format=named refuses a file in the source layout, naming its lines', async () => {
    const response = await csv(admin, '/api/import/source-csv/preview?format=named', BY_HAND);
    expect(response.statusCode).toBe(200);
    expect(response.json().format).toBe('named');
    expect(problemsOf(response)[0]).toMatch(/^line 1: "IPFE" is not a table this import knows/);
  });

  it.each([
    ['/api/import/source-csv/preview?format=dsr', 'format'],
    ['/api/import/source-csv/preview?createServers=maybe', 'createServers'],
    ['/api/import/source-csv?basedOn=1&format=xml', 'format'],
  ])('refuses %s with 400 naming %s, committing nothing', async (url, field) => {
    const before = await snapshot(t.app);
    const response = await csv(admin, url, BY_HAND);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.fields.map((f: { path: string }) => f.path)).toContain(field);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('refuses an unknown export format with 400', async () => {
    const response = await admin.get('/api/export/source-csv?format=xlsx');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.fields[0].path).toBe('format');
  });
});
