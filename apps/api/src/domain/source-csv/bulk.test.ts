import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  configurationSchema,
  configurationShape,
  defaultsOf,
  emptyConfiguration,
  optionsSchema,
  type Configuration,
} from '@ipfe/schema';
import { configuration } from './arbitraries.ts';
import {
  LIST_COLUMNS,
  OPTION_COLUMNS,
  OPTIONS_RECORD_COLUMNS,
  TSA_FIELDS,
  tsaColumnAt,
} from './bulk-layout.ts';
import { readBulkFile } from './bulk-read.ts';
import { writeBulkFile } from './bulk-write.ts';
import { detectFormat } from './import-file.ts';
import { writeSourceCsv } from './write.ts';

const BY_HAND = readFileSync(
  new URL('../../../test/fixtures/source-bulk-by-hand.csv', import.meta.url),
  'utf8',
);

/** What the hand-written file imports onto: the IPFEs, XSI networks and servers it refers to. */
const site: Configuration = configurationShape.parse({
  options: { ipfe: { A1: { address: '127.250.0.11', agentPort: 9701 } } },
  xsiNetworks: [
    { name: 'xsi1', cidr: '127.1.0.0/16' },
    { name: 'xsi6', cidr: '2001:db8::/64' },
  ],
  appServers: [1, 2, 3].map((i) => ({
    name: `mp${i}`,
    addresses: [`127.1.1.${i}`, `2001:db8::${i}`],
    initiatorPortRange: { start: 16384 + (i - 1) * 512, end: 16384 + i * 512 - 1 },
  })),
});

const lines = (file: string) => file.split(/\r?\n/);
/** The file with the cell at `column` of line `line` (from 1) replaced. */
function withCell(file: string, line: number, column: number, value: string) {
  const all = lines(file);
  const cells = all[line - 1]!.split(',');
  cells[column] = value;
  all[line - 1] = cells.join(',');
  return all.join('\n');
}
const byNumber = (targetSets: Configuration['targetSets']) =>
  [...targetSets].sort((a, b) => a.number - b.number);
const said = (read: { problems: { path: string; message: string }[] }) =>
  read.problems.map((p) => `${p.path}: ${p.message}`);

describe("the source product's bulk file, written by hand from SOURCE-FACTS.md", () => {
  it('is read as the source layout', () => {
    expect(detectFormat(BY_HAND)).toBe('source');
    expect(detectFormat(writeSourceCsv(site))).toBe('named');
  });

  it('imports, with the servers it names created after their addresses', () => {
    const read = readBulkFile(BY_HAND, site, new Map(), { createServers: true });
    expect(said(read)).toEqual([]);
    const config = read.config!;
    expect(configurationSchema.safeParse(config).success).toBe(true);
    expect(config.options).toMatchObject({
      ipfe: {
        // An agent port is ours: kept as it runs, the default for a new slot.
        A1: { address: '127.250.0.11', agentPort: 9701 },
        A2: { address: '127.250.0.12', agentPort: 8701 },
        B1: { address: '127.250.0.13' },
        B2: { address: '127.250.0.14' },
      },
      mateHeartbeatPort: 19041,
      tcpRejectOption: 'tcpReset',
      sctpRejectOption: 'drop',
      imbalanceMinPps: 20000,
      leastLoadThreshold: 0,
      accounting: true,
      monitoringPort: 9675,
      connectTimeoutS: 3,
      connectTryIntervalS: 1,
      monitorProtocol: 'heartbeat',
      packetRateLimitPps: 500000,
    });
    expect(config.targetSets.map((ts) => ts.number)).toEqual([1, 2, 5]);
    const [one, two, five] = config.targetSets;
    expect(one).toMatchObject({
      family: 'ipv4',
      protocols: 'tcp',
      disabled: false,
      deleteAgeSeconds: 600,
      algorithm: 'leastLoad',
      leastLoad: {
        mpsFactor: 50,
        connectionCountFactor: 50,
        allowedDeviation: 5,
        peerNodeAware: true,
        peerNodeThreshold: 1,
      },
      primary: { address: '127.1.0.101', activeIpfe: 'A1' },
      secondary: null,
      servers: [
        { address: '127.1.1.1', secondaryAddress: null, description: 'rack A', weight: 100 },
        { address: '127.1.1.2', secondaryAddress: null, description: '', weight: 50 },
        {
          address: '127.1.1.11',
          secondaryAddress: null,
          description: 'new in rack B',
          weight: 100,
        },
      ],
    });
    expect(two).toMatchObject({
      protocols: 'both',
      algorithm: 'hash',
      deleteAgeSeconds: 900,
      primary: { address: '127.1.0.102', activeIpfe: 'A2' },
      secondary: { address: '127.1.0.122', activeIpfe: 'A1' },
      leastLoad: { allowedDeviation: 10, peerNodeAware: false },
      servers: [
        { address: '127.1.1.21', secondaryAddress: '127.1.2.21' },
        { address: '127.1.1.22', secondaryAddress: '127.1.2.22' },
      ],
    });
    expect(five).toMatchObject({
      family: 'ipv6',
      protocols: 'sctp',
      disabled: true,
      algorithm: 'hash',
      primary: { address: '2001:db8::105', activeIpfe: 'B1' },
      leastLoad: { mpsFactor: 0, connectionCountFactor: 0, peerNodeThreshold: 2 },
      servers: [{ address: '2001:db8::3' }, { address: '2001:db8::51', weight: 200 }],
    });
    expect(config.appServers.map((s) => [s.name, s.addresses])).toEqual([
      ['mp1', ['127.1.1.1', '2001:db8::1']],
      ['mp2', ['127.1.1.2', '2001:db8::2']],
      ['mp3', ['127.1.1.3', '2001:db8::3']],
      ['127.1.1.11', ['127.1.1.11']],
      ['127.1.1.21', ['127.1.1.21', '127.1.2.21']],
      ['127.1.1.22', ['127.1.1.22', '127.1.2.22']],
      ['2001-db8--51', ['2001:db8::51']],
    ]);
    // The next free Initiator Port Ranges, after those of mp1–mp3.
    expect(config.appServers.slice(3).map((s) => s.initiatorPortRange.start)).toEqual([
      17920, 18432, 18944, 19456,
    ]);
    // Its StateSyncReconnectS has no field here: said, never dropped silently.
    expect(read.notImported).toEqual([
      {
        table: 'IpfeOption',
        column: 'StateSyncReconnectS',
        line: 1,
        message:
          'not imported: column 7 (StateSyncReconnectS) of IpfeOption ("5"): this OAM\'s mates keep no TCP connection to reconnect (they beacon over UDP)',
      },
    ]);
    expect(read.notes).toEqual([expect.stringMatching(/^The source's public pages do not show/)]);
  });

  it('names precisely the addresses not known here and offers to create them, until that is accepted', () => {
    const read = readBulkFile(BY_HAND, site);
    expect(read.config).toBeNull();
    expect(read.serversToCreate).toEqual([
      { name: '127.1.1.11', addresses: ['127.1.1.11'], xsiNetworks: ['xsi1'], lines: [4] },
      {
        name: '127.1.1.21',
        addresses: ['127.1.1.21', '127.1.2.21'],
        xsiNetworks: ['xsi1', 'xsi1'],
        lines: [5],
      },
      {
        name: '127.1.1.22',
        addresses: ['127.1.1.22', '127.1.2.22'],
        xsiNetworks: ['xsi1', 'xsi1'],
        lines: [6],
      },
      { name: '2001-db8--51', addresses: ['2001:db8::51'], xsiNetworks: ['xsi6'], lines: [8] },
    ]);
    expect(said(read)).toEqual([
      'line 4, column 3 (IpAddress): 127.1.1.11 is not an application server here: accept the offer to create application server 127.1.1.11, or add it under Network › Application Servers',
      'line 5, column 3 (IpAddress): 127.1.1.21 is not an application server here: accept the offer to create application server 127.1.1.21, or add it under Network › Application Servers',
      'line 5, column 5 (SecondaryIpAddress): 127.1.2.21 is not an application server here: accept the offer to create application server 127.1.1.21, or add it under Network › Application Servers',
      'line 6, column 3 (IpAddress): 127.1.1.22 is not an application server here: accept the offer to create application server 127.1.1.22, or add it under Network › Application Servers',
      'line 6, column 5 (SecondaryIpAddress): 127.1.2.22 is not an application server here: accept the offer to create application server 127.1.1.22, or add it under Network › Application Servers',
      'line 8, column 3 (IpAddress): 2001:db8::51 is not an application server here: accept the offer to create application server 2001-db8--51, or add it under Network › Application Servers',
    ]);
    // The changes are shown all the same.
    expect(read.candidate?.targetSets.map((ts) => ts.number)).toEqual([1, 2, 5]);
  });

  it('cannot create a server no XSI network here holds: a problem naming it and what to do', () => {
    const noV6 = { ...site, xsiNetworks: site.xsiNetworks.slice(0, 1) };
    const read = readBulkFile(BY_HAND, noV6, new Map(), { createServers: true });
    expect(read.serversToCreate.map((s) => s.name)).not.toContain('2001-db8--51');
    expect(said(read)).toContain(
      'line 8, column 3 (IpAddress): 2001:db8::51 is not an application server here, and no XSI network here holds it, so it cannot be created: add the XSI network that holds it (Network › XSI Networks), or correct the address',
    );
  });
});

describe('what the source has and this OAM cannot honour', () => {
  it.each([
    ['roundrobin', 'no round-robin algorithm'],
    ['leasttraff', 'no least-traffic algorithm'],
    ['leastconns', 'no least-connections algorithm'],
    ['leastloadtest', 'no test variant of Least Load'],
  ])('LoadAlgorithm %s is a problem naming the line, column, value and what to do', (word, why) => {
    const file = withCell(BY_HAND, 1, tsaColumnAt(2, 'LoadAlgorithm'), word);
    const read = readBulkFile(file, site, new Map(), { createServers: true });
    expect(read.config).toBeNull();
    expect(said(read)).toEqual([
      `line 1, column 36 (Tsa2LoadAlgorithm): Tsa2LoadAlgorithm "${word}" cannot be honoured here: this OAM has ${why}${word === 'roundrobin' ? ' (Least Load falls back to it below the Least Load threshold)' : word === 'leasttraff' ? ' (Least Load weighs traffic by its MPS Factor)' : word === 'leastconns' ? ' (Least Load weighs connections by its Connection Count Factor)' : ''}; set the cell to hash or leastload and import again`,
    ]);
  });

  it('an Options record of another release (16 Target Sets) is a problem saying what to do', () => {
    const [options, ...rest] = lines(BY_HAND);
    const short = options!
      .split(',')
      .slice(0, 19 + 16 * 13)
      .join(',');
    const read = readBulkFile([short, ...rest].join('\n'), site);
    expect(said(read)).toEqual([
      `line 1: The Options record has 227 columns, not ${OPTIONS_RECORD_COLUMNS} (2, then 17 options, then 32 Target Sets × 13): it is laid out for another release of the source, whose columns this import cannot place. Export it from a release with 32 Target Sets of these 13 columns, or lay it out as docs/migration.md shows`,
    ]);
  });

  it('a value out of our range is never changed: a problem quoting it', () => {
    const file = withCell(BY_HAND, 1, 18, '100');
    expect(said(readBulkFile(file, site, new Map(), { createServers: true }))).toEqual([
      'line 1, column 18 (PacketRateLimit): Global packet rate limit (packets/s per port) must be a whole number from 1000 to 10000000, not "100"',
    ]);
  });

  it('reports every problem of a file in one preview: cells, records and the rules between them', () => {
    let file = withCell(BY_HAND, 1, 8, 'reset');
    file = withCell(file, 1, tsaColumnAt(1, 'PreferredIpfe'), '5');
    file = withCell(file, 3, 4, '70000');
    file = `${file}IPFE,ListTsa,7,127.1.1.70,100,,\nIPFE,ListTsa,1\nIPFE,Bogus,1\n`;
    const read = readBulkFile(file, site, new Map(), { createServers: true });
    expect(said(read)).toEqual([
      'line 11, column 1 (Keyword): "Bogus" is not an IPFE record this import knows: its records are Options (IpfeOption) and ListTsa (IpfeListTsa)',
      'line 10: A ListTsa record has 5 to 7 columns (application type, ListTsa, Target Set number, IP address, weighting[, secondary IP address[, description]]), not 3: see decision 024 in docs/migration.md',
      'line 1, column 8 (RejectOption): RejectOption must be one of: tcpreset, drop, icmphostunreachable, icmpportunreachable, icmpadminprohibited, not "reset"',
      'line 1, column 24 (Tsa1PreferredIpfe): Tsa1PreferredIpfe must be one of: 1, 2, 3, 4, not "5"',
      'line 9, column 2 (TsaNumber): Target Set 7 has no address in the Options record on line 1 (column 98 (Tsa7IPAddress)): give it one there, or remove this record',
      'line 3, column 4 (Weight): Weighting must be a whole number from 0 to 65535, not "70000"',
    ]);
  });

  it('lists the records of other application types as not imported (a whole-DSR export)', () => {
    const file = `Diameter,LocalNode,dsr1,realm\nDiameter,PeerNode,peer1\n${BY_HAND}`;
    const read = readBulkFile(file, site, new Map(), { createServers: true });
    expect(said(read)).toEqual([]);
    expect(read.notImported[0]).toEqual({
      table: 'Diameter',
      column: '0 (Application Type)',
      line: 1,
      message:
        'not imported: 2 records of application type Diameter (from line 1): this import reads IPFE records only',
    });
  });

  it('reads comment lines, any case of its words, and CRLF', () => {
    const file = `# exported for the move\r\n${BY_HAND.replaceAll('\n', '\r\n').replace('IPFE,Options', 'ipfe,OPTIONS').replace(',leastload,', ',LeastLoad,')}`;
    const read = readBulkFile(file, site, new Map(), { createServers: true });
    expect(said(read)).toEqual([]);
    expect(read.config!.targetSets[0]!.algorithm).toBe('leastLoad');
  });

  it('says a file without IPFE records is none of its', () => {
    expect(said(readBulkFile('Diameter,LocalNode,dsr1\n', site))).toEqual([
      'the file: The file has no IPFE records: export the IPFE configuration (IpfeOption and IpfeListTsa)',
    ]);
    expect(said(readBulkFile('\n\n', site))).toEqual(['the file: The file has no records']);
  });
});

describe('the export in the source layout', () => {
  it('writes CRLF, positional records of the source: 435 columns of Options, 7 of ListTsa', () => {
    const read = readBulkFile(BY_HAND, site, new Map(), { createServers: true });
    const written = writeBulkFile(read.config!);
    expect(written.endsWith('\r\n')).toBe(true);
    const records = written.trimEnd().split('\r\n');
    expect(records[0]!.split(',')).toHaveLength(OPTIONS_RECORD_COLUMNS);
    expect(records[0]!.split(',').slice(0, 19).join(',')).toBe(
      // Columns without a field here (StateSyncReconnectS, GratuitousArpType) are written empty.
      'IPFE,Options,127.250.0.11,127.250.0.12,127.250.0.13,127.250.0.14,19041,,tcpreset,drop,20000,0,,enabled,9675,3,1,fullmonitoring,500000',
    );
    expect(records[0]!.split(',').slice(19, 45).join(',')).toBe(
      '600,127.1.0.101,,,leastload,1,TCP,0,5,50,50,enabled,1,900,127.1.0.102,127.1.0.122,1,hash,2,SCTP_AND_TCP,0,10,50,50,disabled,1',
    );
    expect(records.slice(1)).toEqual([
      'IPFE,ListTsa,1,127.1.1.1,100,,rack A',
      'IPFE,ListTsa,1,127.1.1.2,50,,',
      'IPFE,ListTsa,1,127.1.1.11,100,,new in rack B',
      'IPFE,ListTsa,2,127.1.1.21,100,127.1.2.21,',
      'IPFE,ListTsa,2,127.1.1.22,100,127.1.2.22,',
      'IPFE,ListTsa,5,2001:db8::3,100,,',
      'IPFE,ListTsa,5,2001:db8::51,200,,',
    ]);
  });

  it('reads back, onto the configuration it came from, exactly that configuration', () => {
    fc.assert(
      fc.property(configuration, (config) => {
        const read = readBulkFile(writeBulkFile(config), config);
        expect(read.problems).toEqual([]);
        expect(read.notImported).toEqual([]);
        expect(read.serversToCreate).toEqual([]);
        // Its Target Sets come in the order of their numbers.
        expect(read.config).toEqual({ ...config, targetSets: byNumber(config.targetSets) });
      }),
      { numRuns: 150 },
    );
  });

  it('carries into an OAM with only its networks and servers everything the source has a column for', () => {
    fc.assert(
      fc.property(configuration, (config) => {
        const bare = { ...emptyConfiguration(), xsiNetworks: config.xsiNetworks };
        const read = readBulkFile(writeBulkFile(config), bare, new Map(), {
          createServers: true,
        });
        expect(read.problems).toEqual([]);
        const got = read.config!;
        // The servers are created after their addresses, with every address the lists use.
        const listed = new Set(config.targetSets.flatMap((ts) => ts.servers.map((s) => s.address)));
        expect(new Set(got.appServers.flatMap((s) => s.addresses))).toEqual(listed);
        // Our own options take their defaults; the source's are carried.
        const defaults = defaultsOf(optionsSchema);
        expect(got.options).toEqual({
          ...config.options,
          ipfe: Object.fromEntries(
            Object.entries(config.options.ipfe).map(([slot, node]) => [
              slot,
              node && { address: node.address, agentPort: defaults.ipfe.A1?.agentPort ?? 8701 },
            ]),
          ),
          mateIntervalMs: defaults.mateIntervalMs,
          mateTimeoutMs: defaults.mateTimeoutMs,
          forwardedPorts: defaults.forwardedPorts,
          imbalanceThresholdPct: defaults.imbalanceThresholdPct,
          bgp: null,
        });
        expect(got.targetSets).toEqual(
          byNumber(config.targetSets).map((ts) => {
            const { activeActiveIpfes, ...rest } = ts;
            void activeActiveIpfes;
            return { ...rest, initiatorSupport: false, serving: 'activeStandby' };
          }),
        );
      }),
      { numRuns: 150 },
    );
  });

  it('never throws on any text, and a file it takes passes every rule', () => {
    // One seed, new each run, draws the corpus and the files made of it: the seed fc.assert prints
    // on a failure, put here in place of the random one, reproduces both.
    const seed = (Math.random() * 0x1_0000_0000) | 0;
    const sample = fc.sample(configuration, { numRuns: 20, seed });
    const corpus = [...sample.flatMap((c) => lines(writeBulkFile(c))), ...lines(BY_HAND)].filter(
      (l) => l !== '',
    );
    const mutated = fc
      .record({
        line: fc.constantFrom(...corpus),
        at: fc.nat(500),
        cell: fc.string({ maxLength: 12 }),
      })
      .map(({ line, at, cell }) => {
        const cells = line.split(',');
        cells[at % cells.length] = cell;
        return cells.join(',');
      });
    const file = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc
        .array(
          fc.oneof(
            fc.constantFrom(...corpus),
            mutated,
            fc
              .array(
                fc.oneof(
                  fc.string({ maxLength: 8 }),
                  fc.constantFrom('IPFE', 'ListTsa', 'Options', '1', '"', '#'),
                ),
                {
                  maxLength: 8,
                },
              )
              .map((cells) => cells.join(',')),
          ),
          { maxLength: 40 },
        )
        .map((l) => l.join('\n')),
    );
    fc.assert(
      fc.property(file, fc.boolean(), (text, createServers) => {
        const read = readBulkFile(text, site, new Map(), { createServers });
        if (read.config) expect(configurationSchema.safeParse(read.config).success).toBe(true);
        else expect(read.problems.length).toBeGreaterThan(0);
        for (const p of read.problems) expect(p.message).toMatch(/\w/);
      }),
      { numRuns: 500, seed },
    );
  });
});

describe('docs/migration.md', () => {
  it('lists every column of the source layout by its name', () => {
    const doc = readFileSync(new URL('../../../../../docs/migration.md', import.meta.url), 'utf8');
    const names = [
      ...OPTION_COLUMNS.filter((c) => !c.name.startsWith('Ipfe')).map((c) => c.name),
      'Ipfe1IpAddress',
      'Ipfe4IpAddress',
      ...TSA_FIELDS,
      ...Object.keys(LIST_COLUMNS),
    ];
    for (const name of names) expect(doc, name).toContain(`\`${name}\``);
    expect(OPTIONS_RECORD_COLUMNS).toBe(435);
    expect(doc).toContain('| 32–434 |');
  });
});
