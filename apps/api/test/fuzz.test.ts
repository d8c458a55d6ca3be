import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leastLoadTargetSet, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

/**
 * Property-based fuzzing of every write route: random and mutated bodies never produce a 5xx,
 * every rejection names fields or says why, and a rejection changes nothing.
 */
const RUNS_PER_ROUTE = Number(process.env.IPFE_FUZZ_RUNS ?? 300);

const { t, admin } = useTestApp({
  per: 'file',
  seed: true,
  setup: async (admin) => {
    await admin.post('/api/target-sets', leastLoadTargetSet());
    await admin.post('/api/peer-node-groups', { name: 'east', members: ['10.1.0.0/16'] });
  },
});

/** Keys an `Object.prototype` lookup would find: a body may name a field after any of them. */
const PROTOTYPE_KEYS = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__proto__',
  '__defineGetter__',
] as const;

const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTOTYPE_KEYS));

const leaf = fc.oneof(
  fc.integer({ min: -70000, max: 70000 }),
  fc.double({ noNaN: false }),
  fc.string({ maxLength: 40 }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    '127.1.0.100',
    '127.1.1.1',
    '127.1.1.2',
    '2001:db8::1',
    '10.0.0.0/8',
    'A1',
    'B2',
    'hash',
    'leastLoad',
    'activeActive',
    'activeStandby',
    'ipv4',
    'ipv6',
    '__proto__',
    'constructor',
    'ä'.repeat(3),
  ),
);
const value = fc.oneof(
  leaf,
  fc.array(leaf, { maxLength: 4 }),
  fc.dictionary(key, leaf, { maxKeys: 4 }),
);

/** Sets an own property, even one named `__proto__`, so that it reaches the JSON body. */
function setOwn(node: Record<string, unknown>, name: string, to: unknown) {
  Object.defineProperty(node, name, {
    value: to,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * The routes' field paths, and beside each object among them (the body itself too) a key named
 * after a prototype member: every depth gets one.
 */
function withPrototypeKeys(paths: string[]): string[] {
  const parents = new Set(['']);
  for (const path of paths) {
    const keys = path.split('.');
    for (let depth = 1; depth <= keys.length; depth++) parents.add(keys.slice(0, depth).join('.'));
  }
  const hostile = [...parents].flatMap((parent) =>
    PROTOTYPE_KEYS.map((name) => (parent ? `${parent}.${name}` : name)),
  );
  return [...paths, ...hostile];
}

function mutate(body: Record<string, unknown>, paths: string[]) {
  return fc
    .array(
      fc.record({
        path: fc.oneof(fc.constantFrom(...paths), fc.constantFrom(...withPrototypeKeys(paths))),
        value,
        drop: fc.boolean(),
      }),
      {
        minLength: 1,
        maxLength: 4,
      },
    )
    .map((mutations) => {
      const copy = structuredClone(body);
      for (const m of mutations) {
        const keys = m.path.split('.');
        let node: Record<string, unknown> = copy;
        for (const name of keys.slice(0, -1)) {
          const own = Object.hasOwn(node, name) ? node[name] : undefined;
          if (typeof own !== 'object' || own === null) setOwn(node, name, {});
          node = node[name] as Record<string, unknown>;
        }
        const last = keys[keys.length - 1]!;
        if (m.drop) delete node[last];
        else setOwn(node, last, m.value);
      }
      return copy;
    });
}

const bodies = {
  options: mutate({ ipfe: { A1: { address: '127.250.0.11' }, A2: { address: '127.250.0.12' } } }, [
    'ipfe',
    'ipfe.A1',
    'ipfe.A1.address',
    'ipfe.B1',
    'ipfe.A1.agentPort',
    'mateIntervalMs',
    'mateTimeoutMs',
    'forwardedPorts',
    'monitorProtocol',
    'connectTimeoutS',
    'tcpRejectOption',
    'sctpRejectOption',
    'packetRateLimitPps',
    'imbalanceMinPps',
    'accounting',
    'leastLoadThreshold',
    'bgp',
    'bgp.asn',
    'bgp.peers',
    'bgp.peers.0.address',
    'bgp.bfdIntervalMs',
    'x',
  ]),
  xsi: mutate({ name: 'fuzz', cidr: '10.77.0.0/16' }, ['name', 'cidr', 'x']),
  appServer: mutate({ name: 'fuzz', addresses: ['127.1.9.9'] }, [
    'name',
    'addresses',
    'addresses.0',
    'addresses.1',
    'initiatorPortRange',
    'x',
  ]),
  group: mutate({ name: 'fuzz', members: ['10.2.0.0/16'] }, ['name', 'members', 'members.0', 'x']),
  targetSet: mutate(leastLoadTargetSet({ number: 9, primary: { address: '127.1.0.199' } }), [
    'number',
    'family',
    'protocols',
    'disabled',
    'deleteAgeSeconds',
    'algorithm',
    'leastLoad',
    'leastLoad.mpsFactor',
    'leastLoad.connectionCountFactor',
    'primary',
    'primary.address',
    'primary.activeIpfe',
    'secondary',
    'secondary.address',
    'servers',
    'servers.0',
    'servers.0.address',
    'servers.0.weight',
    'servers.0.secondaryAddress',
    'servers.1.description',
    'serving',
    'activeActiveIpfes',
    'activeActiveIpfes.1',
    'x',
  ]),
  user: mutate({ name: 'fuzzer', password: 'password-123', role: 'viewer' }, [
    'name',
    'password',
    'role',
    'x',
  ]),
};

async function check(
  send: () => Promise<{ statusCode: number; json(): unknown }>,
  cleanUp: () => Promise<unknown>,
) {
  const before = await snapshot(t.app);
  const users = await t.app.usersRepository.count();
  const response = await send();
  expect(response.statusCode).toBeLessThan(500);
  if (response.statusCode >= 400) {
    const { error } = response.json() as {
      error: { code: string; message: string; fields: unknown[] };
    };
    expect(error.code).toMatch(/^[A-Z_]+$/);
    expect(error.message.length).toBeGreaterThan(0);
    expect(await snapshot(t.app)).toEqual(before);
    expect(await t.app.usersRepository.count()).toBe(users);
  } else {
    await cleanUp();
  }
}

const ifMatch = async (url: string) => (await admin.get(url)).headers.etag as string;

describe('fuzzing every write route', () => {
  it.each([
    [
      'PUT /api/options',
      bodies.options,
      (b: unknown) => async () => admin.put('/api/options', b, await ifMatch('/api/options')),
      async () => {},
    ],
    [
      'POST /api/xsi-networks',
      bodies.xsi,
      (b: unknown) => () => admin.post('/api/xsi-networks', b),
      async () => admin.remove('/api/xsi-networks/fuzz'),
    ],
    [
      'PUT /api/xsi-networks/xsi6',
      bodies.xsi,
      (b: unknown) => async () =>
        admin.put('/api/xsi-networks/xsi6', b, await ifMatch('/api/xsi-networks/xsi6')),
      async () => {},
    ],
    [
      'POST /api/app-servers',
      bodies.appServer,
      (b: unknown) => () => admin.post('/api/app-servers', b),
      async () => admin.remove('/api/app-servers/fuzz'),
    ],
    [
      'PUT /api/app-servers/mp3',
      bodies.appServer,
      (b: unknown) => async () =>
        admin.put('/api/app-servers/mp3', b, await ifMatch('/api/app-servers/mp3')),
      async () => {},
    ],
    [
      'POST /api/peer-node-groups',
      bodies.group,
      (b: unknown) => () => admin.post('/api/peer-node-groups', b),
      async () => admin.remove('/api/peer-node-groups/fuzz'),
    ],
    [
      'PUT /api/peer-node-groups/east',
      bodies.group,
      (b: unknown) => async () =>
        admin.put('/api/peer-node-groups/east', b, await ifMatch('/api/peer-node-groups/east')),
      async () => {},
    ],
    [
      'POST /api/target-sets',
      bodies.targetSet,
      (b: unknown) => () => admin.post('/api/target-sets', b),
      async () => admin.remove('/api/target-sets/9'),
    ],
    [
      'PUT /api/target-sets/1',
      bodies.targetSet,
      (b: unknown) => async () =>
        admin.put('/api/target-sets/1', b, await ifMatch('/api/target-sets/1')),
      async () => {},
    ],
    [
      'POST /api/users',
      bodies.user,
      (b: unknown) => () => admin.post('/api/users', b),
      async () => admin.remove('/api/users/fuzzer'),
    ],
  ] as const)(
    '%s: no 5xx, and a rejection changes nothing',
    async (_route, arbitrary, request, cleanUp) => {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (body) => check(request(body), cleanUp)),
        { numRuns: RUNS_PER_ROUTE },
      );
    },
    120_000,
  );
});

/** Both layouts of the import: the source's bulk file written by hand, and our named-column CSV. */
const BY_HAND = readFileSync(
  new URL('./fixtures/source-bulk-by-hand.csv', import.meta.url),
  'utf8',
);

/** A file of the corpus with cells replaced, records dropped or repeated, or plain noise. */
function files(corpus: string[]) {
  const lines = corpus.flatMap((f) => f.split(/\r?\n/)).filter((l) => l !== '');
  const cell = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      'IPFE',
      'Options',
      'ListTsa',
      'IpfeListTsa',
      'roundrobin',
      'SCTP_AND_TCP',
      '127.1.1.99',
      '2001:db8::99',
      '99',
      '-1',
      '"',
      '#',
      '__proto__',
      'constructor',
      'ä'.repeat(3),
    ),
  );
  const mutated = fc
    .record({ line: fc.constantFrom(...lines), at: fc.nat(500), cell })
    .map(({ line, at, cell }) => {
      const cells = line.split(',');
      cells[at % cells.length] = cell;
      return cells.join(',');
    });
  return fc.oneof(
    fc.string({ maxLength: 400 }),
    fc
      .array(
        fc.oneof(
          fc.constantFrom(...lines),
          mutated,
          fc.array(cell, { maxLength: 9 }).map((c) => c.join(',')),
        ),
        {
          maxLength: 30,
        },
      )
      .chain((l) => fc.constantFrom('\n', '\r\n').map((end) => l.join(end))),
  );
}

describe('fuzzing the file import', () => {
  it('POST /api/import/source-csv[/preview]: no 5xx, every problem said, a refusal changes nothing', async () => {
    const named = (await admin.get('/api/export/source-csv')).body;
    const source = (await admin.get('/api/export/source-csv?format=source')).body;
    const query = fc.record({
      format: fc.constantFrom('', '&format=source', '&format=named'),
      create: fc.constantFrom('', '&createServers=true', '&createServers=false'),
    });
    await fc.assert(
      fc.asyncProperty(files([BY_HAND, named, source]), query, async (file, q) => {
        const post = (url: string) =>
          admin.request({
            method: 'POST',
            url,
            payload: file,
            headers: { 'content-type': 'text/csv' },
          });
        const previewed = await post(
          `/api/import/source-csv/preview?since=0${q.format}${q.create}`,
        );
        expect(previewed.statusCode).toBeLessThan(500);
        if (previewed.statusCode !== 200) return;
        const body = previewed.json() as { basedOn: number; problems: { message: string }[] };
        for (const p of body.problems) expect(p.message).toMatch(/\w/);
        await check(
          () => post(`/api/import/source-csv?basedOn=${body.basedOn}${q.format}${q.create}`),
          async () => {},
        );
      }),
      { numRuns: Math.ceil(RUNS_PER_ROUTE / 3) },
    );
  }, 180_000);
});
