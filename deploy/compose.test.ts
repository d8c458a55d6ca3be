import { execFile, spawnSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ConfigDocument } from '@ipfe/schema';
import { DCLinter } from 'dclint';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFlags } from '../apps/agent/src/flags.ts';
import { checkDocument } from '../apps/agent/src/document-check.ts';
import { buildApp, type App } from '../apps/api/src/app.ts';
import { ensureAdmin } from '../apps/api/src/bootstrap.ts';
import { readEnv } from '../apps/api/src/env.ts';
import { sampleConfiguration } from '../scripts/local-stack.ts';
import { seedOnFirstRun } from '../scripts/seed.ts';
import { COMPOSE, COMPOSE_NETWORKS, SEED_STACKS } from './compose-stack.ts';
import {
  appStages,
  copiesOf,
  dockerignored,
  envOf,
  execForm,
  parseDockerfile,
  splitFlags,
  type Stage,
} from './dockerfile.ts';

/*
 * No Docker engine runs here, so docker-compose.yml, the Dockerfiles and .dockerignore are checked
 * as files: against the Compose specification's JSON schema, against the repository (paths,
 * package bins, flag parsers, dependencies) and against the configuration the OAM seeds and pushes.
 * The compose addresses are never connected to: only parsed and compared.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const composeFile = join(root, 'docker-compose.yml');
const run = promisify(execFile);

interface Service {
  build?: { context: string; dockerfile: string };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  networks: Record<string, { ipv4_address: string }>;
  ports?: string[];
  expose?: string[];
  healthcheck?: { test: string[]; interval?: string };
  stop_grace_period?: string;
  init?: boolean;
  /** Services of an optional profile (monitoring) do not start with a plain `up`. */
  profiles?: string[];
  restart?: string;
}
interface Compose {
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: { subnet: string }[] } }>;
  volumes: Record<string, unknown>;
  secrets: Record<string, { file: string }>;
}

const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as Compose;
// The production topology: the services a plain `docker compose up` starts.
const services = Object.entries(compose.services).filter(([, s]) => !s.profiles);
const agents = services.filter(([name]) => name.startsWith('ipfe-'));
const appServers = services.filter(([name]) => name.startsWith('appserver-'));
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

/** `${NAME:-default}` → default: what compose runs with when the operator sets nothing. */
function withDefaults(value: string): string {
  return value.replace(
    /\$\{([A-Z_]+):-([^}]*)\}/g,
    (_, _name: string, fallback: string) => fallback,
  );
}

function ipv4ToInt(address: string) {
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}
function inSubnet(address: string, cidr: string) {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = ipv4ToInt(base!);
  return ipv4ToInt(address) >= start && ipv4ToInt(address) < start + size;
}

/** The argument after `flag` in a command line. */
function flag(command: string[], name: string): string | undefined {
  const at = command.indexOf(name);
  return at >= 0 ? command[at + 1] : undefined;
}

function dockerfileOf(service: Service) {
  const path = join(root, service.build!.context, service.build!.dockerfile);
  return { path, stages: parseDockerfile(readFileSync(path, 'utf8')) };
}

/** What the container runs: the image's ENTRYPOINT, then the service's command or the CMD. */
function argvOf(service: Service): string[] {
  const { stages } = dockerfileOf(service);
  const final = stages.at(-1)!;
  const last = (keyword: string) =>
    final.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;
  const entrypoint = execForm(last('ENTRYPOINT') ?? '[]');
  const cmd = execForm(last('CMD') ?? '[]');
  expect(entrypoint, 'ENTRYPOINT in exec form').not.toBeNull();
  return [...entrypoint!, ...(service.command ?? cmd ?? [])];
}

/** The script node runs (after its own options) in a command line starting with `node`. */
function scriptOf(argv: string[]) {
  expect(argv[0]).toBe('node');
  let i = 1;
  while (argv[i]?.startsWith('-')) i += argv[i] === '--import' ? 2 : 1;
  return argv[i]!;
}

const workspaces = [
  'packages/schema',
  'packages/engine',
  'packages/reporter',
  'apps/api',
  'apps/agent',
]
  .map((dir) => ({ dir, manifest: readJson(`${dir}/package.json`) }))
  .map(({ dir, manifest }) => ({
    dir,
    name: manifest.name as string,
    dependencies: (manifest.dependencies ?? {}) as Record<string, string>,
    exports: (manifest.exports ?? {}) as Record<string, string>,
    bin: (manifest.bin ?? {}) as Record<string, string>,
    scripts: (manifest.scripts ?? {}) as Record<string, string>,
  }));
const workspaceOf = (path: string) => workspaces.find((w) => path.startsWith(`${w.dir}/`));
const byName = (name: string) => workspaces.find((w) => w.name === name);

/**
 * Every file a script loads at run time, following relative and @ipfe/* imports (type-only
 * imports are erased), and the npm packages it imports, per file.
 */
function importClosure(entry: string) {
  const files = new Set<string>();
  const packages: { file: string; name: string }[] = [];
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(join(root, file), 'utf8');
    const specifiers = [
      ...text.matchAll(/^\s*(?:import|export)(?!\s+type\s)[^'"]*?from\s+'([^']+)'/gm),
      ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
      ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
    ].map((m) => m[1]!);
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) {
        visit(relative(root, resolve(root, dirname(file), specifier)));
      } else if (specifier.startsWith('@ipfe/')) {
        const [, pkg, ...sub] = specifier.split('/');
        const target = byName(`@ipfe/${pkg}`)!;
        packages.push({ file, name: `@ipfe/${pkg}` });
        const exported = target.exports[sub.length ? `./${sub.join('/')}` : '.'];
        expect(exported, `${specifier} is exported`).toBeDefined();
        visit(join(target.dir, exported!));
      } else if (!specifier.startsWith('node:')) {
        const name = specifier.startsWith('@')
          ? specifier.split('/').slice(0, 2).join('/')
          : specifier.split('/')[0]!;
        packages.push({ file, name });
      }
    }
  };
  visit(entry);
  return { files: [...files], packages };
}

/** Internal workspaces `name` needs at run time, itself included. */
function workspaceClosure(name: string): string[] {
  const w = byName(name)!;
  const inner = Object.keys(w.dependencies).filter((d) => d.startsWith('@ipfe/'));
  return [...new Set([name, ...inner.flatMap(workspaceClosure)])];
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification and free of the mistakes dclint knows', () => {
    // dclint validates with the Compose specification's JSON schema (its schemas/compose.schema.json)
    // and then applies the rules below. Left out: its ordering rules (the file is ordered by
    // topology) and no-build-and-image (the images are built once and tagged for a registry).
    const linter = new DCLinter({
      rules: {
        'no-build-and-image': 0,
        'no-duplicate-container-names': 2,
        'no-duplicate-exported-ports': 2,
        'no-quotes-in-volumes': 2,
        'no-unbound-port-interfaces': 2,
        'no-version-field': 2,
        'require-project-name-field': 2,
        'require-quotes-in-ports': 2,
        'service-container-name-regex': 2,
        'service-dependencies-alphabetical-order': 0,
        'service-image-require-explicit-tag': 2,
        'service-keys-order': 0,
        'service-ports-alphabetical-order': 0,
        'services-alphabetical-order': 0,
        'top-level-properties-order': 0,
      },
      quiet: false,
      debug: false,
      exclude: [],
    });
    // dclint's declaration files use extensionless imports, which NodeNext cannot follow.
    type Message = { line: number; rule: string; message: string };
    const lint = (file: string) => linter.lintFiles([file], false)[0]!.messages as Message[];
    expect(lint(composeFile).map((m) => `${m.line}: ${m.rule}: ${m.message}`)).toEqual([]);

    // The validator does reject what the specification does not allow.
    const dir = mkdtempSync(join(tmpdir(), 'ipfe-compose-'));
    try {
      const broken = join(dir, 'docker-compose.yml');
      writeFileSync(
        broken,
        readFileSync(composeFile, 'utf8').replace('  stdin_open: true', '  stdin_opened: true'),
      );
      expect(lint(broken).map((m) => m.rule)).toContain('invalid-schema');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has the topology of the guide: one OAM, IPFE pairs A and B, three application servers', () => {
    expect(services.map(([name]) => name).sort()).toEqual(
      [
        'oam',
        'ipfe-a1',
        'ipfe-a2',
        'ipfe-b1',
        'ipfe-b2',
        'appserver-1',
        'appserver-2',
        'appserver-3',
      ].sort(),
    );
    for (const [name, service] of services) {
      expect(service.healthcheck?.test[0], `${name} has a healthcheck`).toBe('CMD');
      expect(service.restart, name).toBe('unless-stopped');
      expect(service.init, `${name} runs under an init that forwards signals`).toBe(true);
    }
    // Each pair's mates share one L2 segment (the backend network), as their beacons need.
    for (const pair of ['a', 'b'])
      expect(Object.keys(compose.services[`ipfe-${pair}1`]!.networks)).toEqual(
        Object.keys(compose.services[`ipfe-${pair}2`]!.networks),
      );
    // The OAM's data is a named volume at the data folder it is told to use.
    const oam = compose.services.oam!;
    expect(oam.volumes).toEqual([`oam-data:${oam.environment!.IPFE_DATA_DIR}`]);
    expect(Object.keys(compose.volumes)).toContain('oam-data');
    // Each agent keeps its persisted configuration across restarts, to apply it before the OAM
    // answers.
    for (const [name, service] of agents)
      expect(service.volumes).toEqual([`${name}-state:${flag(service.command!, '--state-dir')}`]);
  });

  it('builds every image from a context and a Dockerfile that exist', () => {
    for (const [name, service] of services) {
      expect(service.build, name).toBeDefined();
      const context = join(root, service.build!.context);
      expect(statSync(context).isDirectory(), `${name}: context ${context}`).toBe(true);
      expect(existsSync(join(context, service.build!.dockerfile)), name).toBe(true);
      expect(service.image, name).toMatch(/^ipfe-oam\/[a-z]+:[a-z0-9.-]+$/);
    }
    // One image per Dockerfile, whatever the number of services that run it.
    const images = new Map<string, string>();
    for (const [, service] of services) {
      const previous = images.get(service.image!);
      if (previous) expect(service.build!.dockerfile).toBe(previous);
      images.set(service.image!, service.build!.dockerfile);
    }
  });

  it('runs in every service a real command of the package it runs, with flags it accepts', async () => {
    const tokenDir = mkdtempSync(join(tmpdir(), 'ipfe-compose-token-'));
    try {
      const tokenFile = join(tokenDir, 'agent-token');
      writeFileSync(tokenFile, `${'t'.repeat(43)}\n`);
      const secretPath = '/run/secrets/agent_token';

      for (const [name, service] of agents) {
        const argv = argvOf(service);
        const agent = byName('@ipfe/agent')!;
        expect(scriptOf(argv), name).toBe(join(agent.dir, agent.bin['ipfe-agent']!));
        // The agent's own flag parser, with the secret's path pointed at a real file.
        const flags = argv.slice(2).map((a) => (a === secretPath ? tokenFile : a));
        const parsed = readFlags(flags, {});
        expect(parsed, `${name}: ${argv.join(' ')}`).toHaveProperty('flags');
        // And the real command, with one value it must refuse added: that is its only complaint.
        expect(flags).not.toContain('--relay-port');
        const refused = await run(process.execPath, [
          join(root, scriptOf(argv)),
          ...flags,
          '--relay-port',
          '0',
        ]).catch((e: { code: number; stderr: string }) => e);
        expect(refused, name).toMatchObject({ code: 2 });
        expect(
          (refused as { stderr: string }).stderr
            .split('\n')
            .filter((l) => l.startsWith('ipfe-agent:')),
          name,
        ).toEqual(['ipfe-agent: --relay-port must be a TCP port (1–65535)']);
      }

      const reporter = byName('@ipfe/reporter')!;
      const bin = join(reporter.dir, reporter.bin['ipfe-reporter']!);
      for (const [name, service] of appServers) {
        const argv = argvOf(service);
        expect(scriptOf(argv), name).toBe(bin);
        // The real command, with one value it must refuse added: it parses every flag, reports
        // every problem, and stops before listening. The only complaint is the added one.
        expect(argv).not.toContain('--interval-ms');
        const refused = await run(process.execPath, [
          join(root, bin),
          ...argv.slice(2),
          '--interval-ms',
          '0',
        ]).catch((e: { code: number; stderr: string }) => e);
        expect(refused, name).toMatchObject({ code: 2 });
        expect(
          (refused as { stderr: string }).stderr
            .split('\n')
            .filter((l) => l.startsWith('ipfe-reporter:')),
          `${name}: ${argv.join(' ')}`,
        ).toEqual([
          'ipfe-reporter: --interval-ms must be a whole number of milliseconds from 10 to 60000',
        ]);
      }

      const oam = compose.services.oam!;
      const argv = argvOf(oam);
      const entry = scriptOf(argv);
      expect(argv.slice(0, 3)).toEqual(['node', '--import', 'tsx']); // tsx: a runtime dependency
      expect(byName('@ipfe/api')!.dependencies).toHaveProperty('tsx');
      // The entry runs the very server of `npm run start -w @ipfe/api`.
      const api = byName('@ipfe/api')!;
      const server = join(api.dir, api.scripts.start!.replace(/^tsx\s+/, ''));
      expect(importClosure(entry).files).toContain(server);
      // Its environment passes the server's own checks (the entry turns the file into the token).
      const env = Object.fromEntries(
        Object.entries(oam.environment!).map(([k, v]) => [k, withDefaults(String(v))]),
      );
      expect(Object.keys(SEED_STACKS)).toContain(env.IPFE_SEED);
      const { IPFE_AGENT_TOKEN_FILE: _file, IPFE_SEED: _seed, ...serverEnv } = env;
      expect(readEnv({ ...serverEnv, IPFE_AGENT_TOKEN: 't'.repeat(43) })).toHaveProperty('env');
    } finally {
      rmSync(tokenDir, { recursive: true, force: true });
    }
  });

  it('hands the OAM and every agent the same push token, as a compose secret only', () => {
    expect(Object.keys(compose.secrets)).toEqual(['agent_token']);
    const file = compose.secrets.agent_token!.file;
    expect(file).toBe('./deploy/secrets/agent-token');
    // The token file is never committed and never sent to a build.
    const gitignore = readFileSync(join(root, '.gitignore'), 'utf8').split('\n');
    expect(gitignore).toContain('deploy/secrets/');
    expect(
      dockerignored(
        readFileSync(join(root, '.dockerignore'), 'utf8'),
        'deploy/secrets/agent-token',
      ),
    ).toBe(true);

    const secretPath = '/run/secrets/agent_token';
    const oam = compose.services.oam!;
    expect(oam.secrets).toEqual(['agent_token']);
    expect(oam.environment!.IPFE_AGENT_TOKEN_FILE).toBe(secretPath);
    for (const [name, service] of agents) {
      expect(service.secrets, name).toEqual(['agent_token']);
      expect(flag(service.command!, '--token-file'), name).toBe(secretPath);
    }
    for (const [name, service] of services)
      expect(service.environment?.IPFE_AGENT_TOKEN, `${name}: no token in plain text`).toBe(
        undefined,
      );
  });

  it('makes, with the command the guide gives, a token that the OAM and the agents accept', async () => {
    const guide = readFileSync(join(root, 'docs/deploy.md'), 'utf8');
    const command = /node -e "([^"]+)" > deploy\/secrets\/agent-token/.exec(guide);
    expect(command, 'docs/deploy.md shows how to make the token').not.toBeNull();
    expect(readFileSync(composeFile, 'utf8')).toContain(command![0]);
    const { stdout } = await run(process.execPath, ['-e', command![1]!]);
    const dir = mkdtempSync(join(tmpdir(), 'ipfe-token-'));
    try {
      writeFileSync(join(dir, 'agent-token'), stdout);
      expect(
        readFlags(
          [
            '--slot',
            'A1',
            '--control',
            '127.0.0.1:1',
            '--state-dir',
            dir,
            '--token-file',
            join(dir, 'agent-token'),
          ],
          {},
        ),
      ).toHaveProperty('flags');
      expect(readEnv({ IPFE_AGENT_TOKEN: stdout.trim() })).toHaveProperty('env');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docker-compose.yml and the configuration the OAM seeds (IPFE_SEED=compose)', () => {
  let dir: string;
  let app: App;
  let document: ConfigDocument;

  beforeAll(async () => {
    // The real OAM, on loopback, pushing to nobody: it seeds exactly as the container does.
    dir = mkdtempSync(join(tmpdir(), 'ipfe-compose-seed-'));
    app = await buildApp({
      databaseFile: join(dir, 'ipfe-oam.sqlite'),
      sessionSecret: 'compose-test-session-secret-of-32-characters',
      agentSync: { enabled: false },
    });
    await ensureAdmin(app.usersRepository, dir, 'compose-admin-1', () => {});
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const outcome = await seedOnFirstRun(
      url,
      'compose-admin-1',
      sampleConfiguration(SEED_STACKS.compose),
      () => {},
    );
    expect(outcome).toBe('seeded');
    document = (await app.configRepository.document(
      (await app.configRepository.latestInfo())!.number,
    ))!;
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds a configuration that every agent accepts', () => {
    const verdict = checkDocument(JSON.parse(JSON.stringify(document)));
    expect(verdict).toMatchObject({ ok: true });
    expect(document.config.targetSets.map((t) => [t.number, t.primary.activeIpfe])).toEqual([
      [1, 'A1'],
      [2, 'A2'],
      [3, 'B1'],
      [4, 'B2'],
    ]);
  });

  it('puts every container on the networks and addresses the configuration names', () => {
    expect(
      Object.fromEntries(
        Object.entries(compose.networks).map(([name, n]) => [name, n.ipam.config[0]!.subnet]),
      ),
    ).toEqual(COMPOSE_NETWORKS);
    expect(Object.fromEntries(document.config.xsiNetworks.map((n) => [n.name, n.cidr]))).toEqual(
      COMPOSE_NETWORKS,
    );
    const all: string[] = [];
    for (const [name, service] of services)
      for (const [network, { ipv4_address }] of Object.entries(service.networks)) {
        expect(
          inSubnet(ipv4_address, compose.networks[network]!.ipam.config[0]!.subnet),
          name,
        ).toBe(true);
        all.push(ipv4_address);
      }
    expect(new Set(all).size).toBe(all.length);
    // The OAM reaches the agents on their IPFE addresses.
    expect(compose.services.oam!.networks.backend!.ipv4_address).toBe(COMPOSE.oam.address);
  });

  it('runs each agent on the address and port its slot is given, owning its Target Set Address', () => {
    const options = document.config.options;
    const slots = agents.map(([, s]) => flag(s.command!, '--slot'));
    expect(slots.sort()).toEqual(['A1', 'A2', 'B1', 'B2']);
    for (const [name, service] of agents) {
      const slot = flag(service.command!, '--slot') as 'A1' | 'A2' | 'B1' | 'B2';
      const node = options.ipfe[slot]!;
      expect(service.networks.backend!.ipv4_address, name).toBe(node.address);
      expect(flag(service.command!, '--control'), name).toBe(`${node.address}:${node.agentPort}`);
      expect(service.healthcheck!.test.at(-1), name).toContain(
        `'://${node.address}:${node.agentPort}/v1/health'`,
      );
      // The TSA this slot is the preferred active for is an address of this container.
      const owned = document.config.targetSets.filter((t) => t.primary.activeIpfe === slot);
      expect(
        owned.map((t) => t.primary.address),
        name,
      ).toEqual([service.networks.public!.ipv4_address]);
      const relayPort = Number(flag(service.command!, '--relay-port') ?? COMPOSE.relayPort);
      expect(service.expose, name).toEqual([
        String(node.agentPort),
        String(relayPort),
        ...options.forwardedPorts.map(String),
        `${options.mateHeartbeatPort}/udp`,
      ]);
    }
    // An agent's SIGTERM drain (up to 10 s, docs/agent.md) fits in its grace period.
    for (const [name, service] of agents)
      expect(Number.parseInt(service.stop_grace_period!, 10), name).toBeGreaterThan(10);
  });

  it('runs an application server on each configured address, reporting on the monitoring port', () => {
    const { options, appServers: configured } = document.config;
    expect(appServers.map(([, s]) => s.networks.backend!.ipv4_address).sort()).toEqual(
      configured.flatMap((s) => s.addresses).sort(),
    );
    for (const [name, service] of appServers) {
      const address = service.networks.backend!.ipv4_address;
      expect(flag(service.command!, '--listen'), name).toBe(`${address}:${options.monitoringPort}`);
      expect(options.forwardedPorts, name).toContain(Number(flag(service.command!, '--echo')));
      expect(service.healthcheck!.test.at(-1), name).toContain(
        `connect(${options.monitoringPort},'${address}')`,
      );
      expect(service.expose, name).toEqual([
        String(options.monitoringPort),
        ...options.forwardedPorts.map(String),
      ]);
    }
  });

  it('publishes the OAM on loopback only, on the port it listens on, checked by its healthcheck', () => {
    const oam = compose.services.oam!;
    const port = oam.environment!.PORT;
    expect(oam.ports).toEqual([`127.0.0.1:${port}:${port}`]);
    expect(oam.healthcheck!.test.at(-1)).toContain(`'://127.0.0.1:${port}/api/health'`);
  });
});

describe('the healthchecks', () => {
  it('pass against a healthy service and fail against a stopped one (run against loopback stand-ins)', async () => {
    // Stand-ins on loopback: an HTTP server that knows only the health paths, a TCP listener.
    const web = http.createServer((req, res) => {
      res.statusCode = req.url === '/api/health' || req.url === '/v1/health' ? 200 : 404;
      res.end('{}');
    });
    const tcp = net.createServer((socket) => socket.end());
    const listen = (server: net.Server) =>
      new Promise<number>((r) =>
        server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)),
      );
    const [webPort, tcpPort] = [await listen(web), await listen(tcp)];
    const closed = await new Promise<number>((r) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => r(port));
      });
    });
    try {
      for (const [name, service] of services) {
        const [kind, ...argv] = service.healthcheck!.test;
        expect(kind).toBe('CMD');
        expect(argv[0], name).toBe('node');
        const script = argv.at(-1)!;
        const address = service.networks.backend!.ipv4_address;
        const retarget = (port: number) =>
          name === 'oam'
            ? script.replace('127.0.0.1:8080', `127.0.0.1:${port}`)
            : name.startsWith('ipfe-')
              ? script.replace(`${address}:8701`, `127.0.0.1:${port}`)
              : script.replace(`9675,'${address}'`, `${port},'127.0.0.1'`);
        const healthy = name.startsWith('appserver-') ? tcpPort : webPort;
        expect(retarget(healthy), `${name}: the check names its own address`).not.toBe(script);
        const exit = (port: number) =>
          run(process.execPath, [...argv.slice(1, -1), retarget(port)], { timeout: 10_000 }).then(
            () => 0,
            (e: { code: number }) => e.code,
          );
        expect(await exit(healthy), `${name} healthy`).toBe(0);
        expect(await exit(closed), `${name} stopped`).toBe(1);
      }
      // The OAM image's own HEALTHCHECK (for `docker run`), which reads PORT.
      const { stages } = dockerfileOf(compose.services.oam!);
      const check = stages.at(-1)!.instructions.find((i) => i.keyword === 'HEALTHCHECK')!;
      const [, ...imageArgv] = execForm(check.args.slice(check.args.indexOf('CMD ') + 4))!;
      const imageExit = (port: number) =>
        run(process.execPath, imageArgv, {
          env: { ...process.env, PORT: String(port) },
          timeout: 10_000,
        }).then(
          () => 0,
          (e: { code: number }) => e.code,
        );
      expect(await imageExit(webPort)).toBe(0);
      expect(await imageExit(closed)).toBe(1);
    } finally {
      web.close();
      tcp.close();
    }
  });
});

describe('the ha profile: three OAMs over a pg_auto_failover pair, behind HAProxy', () => {
  const ha = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('ha'));
  const names = ha.map(([name]) => name);
  const env = Object.fromEntries(
    readFileSync(join(root, 'deploy/ha.env'), 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  /** What compose makes of `${VAR:-default}` given deploy/ha.env, or given nothing. */
  const interpolate = (value: string, vars: Record<string, string>) =>
    value.replace(
      /\$\{(\w+):-([^}]*)\}/g,
      (_, name: string, fallback: string) => vars[name] || fallback,
    );
  const haproxyCfg = readFileSync(join(root, 'deploy/haproxy/haproxy.cfg'), 'utf8');

  it('adds the monitor, two PostgreSQL nodes, two more OAMs and HAProxy — none of them in a plain up', () => {
    expect(names.sort()).toEqual([
      'haproxy',
      'oam-2',
      'oam-3',
      'pg-monitor',
      'pg-node-a',
      'pg-node-b',
    ]);
    expect(services.map(([name]) => name)).not.toEqual(expect.arrayContaining(names));
    expect(env.COMPOSE_PROFILES).toBe('ha');
  });

  it('gives all three OAMs one multi-host URL naming both nodes, writes to the primary only', () => {
    const oams = ['oam', 'oam-2', 'oam-3'].map((name) => compose.services[name]!);
    const urls = oams.map((o) => interpolate(o.environment!.IPFE_DATABASE_URL!, env));
    expect(new Set(urls).size).toBe(1);
    const url = new URL(urls[0]!.replace(/@([^/]+)\//, '@placeholder/'));
    expect(urls[0]).toMatch(/@pg-node-a:5432,pg-node-b:5432\//);
    expect(url.searchParams.get('target_session_attrs')).toBe('read-write');
    // The OAM's own reading of its environment accepts it.
    expect(readEnv({ IPFE_DATABASE_URL: urls[0] })).toHaveProperty('env');
    // Without deploy/ha.env the default OAM stays on SQLite, as the guide's plain `up` expects.
    expect(interpolate(compose.services.oam!.environment!.IPFE_DATABASE_URL!, {})).toBe('');
    for (const name of ['oam-2', 'oam-3']) {
      const service = compose.services[name]!;
      expect(service.image).toBe(compose.services.oam!.image);
      expect(service.secrets).toEqual(['agent_token']);
      expect(service.volumes).toEqual([`${name}-data:${service.environment!.IPFE_DATA_DIR}`]);
    }
  });

  it('runs both nodes under the monitor that fails them over, from Debian packages', () => {
    const monitor = compose.services['pg-monitor']!;
    expect(monitor.command!.slice(0, 3)).toEqual(['pg_autoctl', 'create', 'monitor']);
    for (const name of ['pg-node-a', 'pg-node-b']) {
      const node = compose.services[name]! as Service & { depends_on?: string[] };
      const command = node.command!;
      expect(command.slice(0, 3)).toEqual(['pg_autoctl', 'create', 'postgres']);
      expect(flag(command, '--hostname')).toBe(name);
      expect(flag(command, '--dbname')).toBe('ipfe');
      expect(flag(command, '--monitor')).toMatch(/^postgres:\/\/autoctl_node@pg-monitor:5432\//);
      expect(command).toContain('--run');
      expect(node.depends_on).toEqual(['pg-monitor']);
      expect(node.build ?? monitor.build).toBeDefined();
      expect(node.image).toBe(monitor.image);
    }
    const dockerfile = readFileSync(
      join(root, monitor.build!.context, monitor.build!.dockerfile),
      'utf8',
    );
    expect(dockerfile).toMatch(
      /apt-get install[^\n]*postgresql-15-auto-failover[^\n]*pg-auto-failover-cli/,
    );
    expect(dockerfile).toMatch(/^USER postgres$/m);
  });

  it('publishes one address, HAProxy on loopback, checking each OAM on GET /api/health', () => {
    const proxy = compose.services.haproxy!;
    expect(proxy.ports).toEqual(['127.0.0.1:8090:8080']);
    for (const [name, service] of ha.filter(([n]) => n !== 'haproxy'))
      expect(service.ports, `${name} is reached through HAProxy only`).toBeUndefined();
    const [mounted, at] = proxy.volumes![0]!.split(':');
    expect(existsSync(join(root, mounted!))).toBe(true);
    expect(at).toBe('/usr/local/etc/haproxy/haproxy.cfg');
    expect(haproxyCfg).toMatch(/^\s*option httpchk GET \/api\/health$/m);
    expect(haproxyCfg).toMatch(/^\s*http-check expect status 200$/m);
    expect(haproxyCfg).toMatch(/^\s*bind :8080$/m);
    const servers = [...haproxyCfg.matchAll(/^\s*server (\S+) (\S+):(\d+)/gm)].map((m) => [
      m[2],
      Number(m[3]),
    ]);
    expect(servers).toEqual(['oam', 'oam-2', 'oam-3'].map((name) => [name, 8080]));
    expect(haproxyCfg).toMatch(/^\s*default-server check inter 1s fall 2 rise 2/m);
  });

  it.runIf(spawnSync('haproxy', ['-v']).status === 0)(
    'has a configuration HAProxy itself accepts',
    () => {
      const checked = spawnSync('haproxy', ['-c', '-f', join(root, 'deploy/haproxy/haproxy.cfg')], {
        encoding: 'utf8',
      });
      expect(checked.status, checked.stderr).toBe(0);
    },
  );
});

describe('the Dockerfiles', () => {
  const images = [...new Set(services.map(([, s]) => s.build!.dockerfile))].map((dockerfile) => {
    const service = services.find(([, s]) => s.build!.dockerfile === dockerfile)![1];
    return { dockerfile, service, stages: dockerfileOf(service).stages };
  });
  const ignore = readFileSync(join(root, '.dockerignore'), 'utf8');

  it.each(images.map((i) => [i.dockerfile, i] as const))(
    '%s: node:20-slim in stages, a non-root user, no development dependencies, no compiler',
    (_, { stages }) => {
      expect(stages.length).toBeGreaterThan(1);
      for (const stage of stages) expect(stage.base).toBe('node:20-slim');
      const final = stages.at(-1)!;
      const user = final.instructions.filter((i) => i.keyword === 'USER').at(-1)?.args;
      expect(user).toBeDefined();
      expect(['root', '0']).not.toContain(user!.split(':')[0]);
      expect(envOf(final).NODE_ENV).toBe('production');
      const runs = (stage: Stage) =>
        stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
      // The final stage installs and compiles nothing: it takes a finished /app from a stage
      // that installed production dependencies only (better-sqlite3's compiler stays there).
      expect(runs(final).join('\n')).not.toMatch(/npm (ci|install)|apt-get|g\+\+|make|python3/);
      const whole = appStages(stages);
      expect(whole.length).toBeGreaterThan(1);
      for (const stage of whole)
        for (const command of runs(stage).filter((r) => /npm (ci|install)\b/.test(r)))
          expect(command, `stage ${stage.name}`).toMatch(/npm ci --omit=dev\b/);
      // Any other stage (the GUI's, with Vite) hands over built files only.
      for (const copy of whole.flatMap(copiesOf))
        if (copy.from !== null && !whole.some((s) => s.name === copy.from))
          expect(copy.source, `from stage ${copy.from}`).toMatch(/\/dist$/);
    },
  );

  it.each(images.map((i) => [i.dockerfile, i] as const))(
    '%s: the image holds every file its command loads, at its repository path',
    (_, { service, stages }) => {
      const script = scriptOf(argvOf(service));
      // Every stage works in /app, laid out as the repository, so that relative imports resolve
      // as they do here; and everything it copies exists and is in the build context.
      for (const stage of stages) {
        expect(stage.instructions.find((i) => i.keyword === 'WORKDIR')?.args).toBe('/app');
        for (const copy of copiesOf(stage).filter((c) => c.from === null)) {
          expect(copy.dest.replace(/^\.\//, ''), `${copy.source} lands at its own path`).toBe(
            copy.source,
          );
          expect(existsSync(join(root, copy.source)), `${copy.source} exists`).toBe(true);
          expect(dockerignored(ignore, copy.source), `${copy.source} is in the context`).toBe(
            false,
          );
        }
      }
      const whole = appStages(stages);
      const fromContext = whole.flatMap(copiesOf).filter((c) => c.from === null);
      const copied = (file: string) =>
        fromContext.some((c) => file === c.source || file.startsWith(`${c.source}/`));

      const { files, packages } = importClosure(script);
      for (const file of files) {
        expect(copied(file), `${file} (loaded by ${script}) is copied into the image`).toBe(true);
        expect(dockerignored(ignore, file), `${file} is in the build context`).toBe(false);
      }

      // npm installs the production dependencies of the workspace the command belongs to (for
      // the OAM entry: the workspace whose start script it runs), from the manifests of every
      // workspace that one needs.
      const install = whole
        .flatMap((s) => s.instructions)
        .find((i) => i.keyword === 'RUN' && /npm ci/.test(i.args))!;
      const workspace = /--workspace (\S+)/.exec(install.args)![1]!;
      const owner =
        workspaceOf(script) ??
        workspaces.find(
          (w) =>
            w.scripts.start && files.includes(join(w.dir, w.scripts.start.replace(/^tsx\s+/, ''))),
        );
      expect(workspace).toBe(owner?.name);
      const needed = workspaceClosure(workspace);
      for (const name of needed)
        expect(copied(`${byName(name)!.dir}/package.json`), name).toBe(true);
      expect(copied('package-lock.json')).toBe(true);
      // ...which are all the packages its code imports: none is a development dependency.
      const installed = new Set(
        needed.flatMap((name) => [name, ...Object.keys(byName(name)!.dependencies)]),
      );
      for (const { file, name } of packages) {
        expect(installed.has(name), `${name} (imported by ${file}) is installed`).toBe(true);
        const home = workspaceOf(file);
        if (home && home.name !== name)
          expect(
            Object.keys(home.dependencies),
            `${name} is a dependency of ${home.name}`,
          ).toContain(name);
      }
    },
  );

  it('builds the GUI into the OAM image with the web package build script', () => {
    const { stages } = images.find((i) => i.dockerfile === 'apps/api/Dockerfile')!;
    const web = readJson('apps/web/package.json');
    expect(web.scripts.build).toBeDefined();
    const gui = stages.find((s) =>
      s.instructions.some((i) => /npm run build --workspace @ipfe\/web/.test(i.args)),
    )!;
    expect(gui).toBeDefined();
    const dist = appStages(stages)
      .flatMap(copiesOf)
      .find((c) => c.from === gui.name);
    expect(dist).toMatchObject({ source: '/app/apps/web/dist', dest: 'apps/web/dist' });
    // ...where the server serves it from (apps/api/src/server.ts: ../../web/dist/).
    expect(readFileSync(join(root, 'apps/api/src/server.ts'), 'utf8')).toContain(
      "new URL('../../web/dist/', import.meta.url)",
    );
  });

  it('.dockerignore keeps secrets, local data and installed modules out of every build', () => {
    for (const path of [
      '.git/config',
      'node_modules/zod/package.json',
      'apps/api/node_modules/undici/package.json',
      'apps/web/dist/index.html',
      'data/ipfe-oam.sqlite',
      'deploy/secrets/agent-token',
      'apps/api/test/backup.test.ts',
      '.env',
    ])
      expect(dockerignored(ignore, path), path).toBe(true);
    for (const path of ['package.json', 'apps/api/src/server.ts', 'apps/web/src/main.tsx'])
      expect(dockerignored(ignore, path), path).toBe(false);
  });
});

describe('the Dockerfile reader these checks rely on', () => {
  it('reads continuations, stages, exec forms, COPY pairs and .dockerignore as Docker does', () => {
    const stages = parseDockerfile(
      [
        '# syntax=docker/dockerfile:1',
        'FROM node:20-slim AS build',
        'RUN apt-get update \\',
        '  # a comment inside a continuation',
        '  && apt-get install -y g++',
        'COPY a.json b/c.json ./',
        'COPY --chown=node src/x src/x',
        'FROM node:20-slim',
        'ENV NODE_ENV=production PORT=8080',
        'COPY --from=build /app /app',
        'ENTRYPOINT ["node", "x.js"]',
      ].join('\n'),
    );
    expect(stages.map((s) => [s.name, s.base])).toEqual([
      ['build', 'node:20-slim'],
      [null, 'node:20-slim'],
    ]);
    expect(stages[0]!.instructions[0]!.args).toBe('apt-get update && apt-get install -y g++');
    expect(copiesOf(stages[0]!)).toEqual([
      { from: null, source: 'a.json', dest: './a.json' },
      { from: null, source: 'b/c.json', dest: './c.json' },
      { from: null, source: 'src/x', dest: 'src/x' },
    ]);
    expect(appStages(stages)).toEqual([stages[1], stages[0]]);
    expect(envOf(stages[1]!)).toEqual({ NODE_ENV: 'production', PORT: '8080' });
    expect(execForm(stages[1]!.instructions.at(-1)!.args)).toEqual(['node', 'x.js']);
    expect(splitFlags('--from=build /app /app')).toEqual({
      flags: { from: 'build' },
      words: ['/app', '/app'],
    });
    const ignore = '**/node_modules\ndist\n*.md\n!README.md';
    expect(dockerignored(ignore, 'a/b/node_modules/x')).toBe(true);
    expect(dockerignored(ignore, 'dist/x.js')).toBe(true);
    expect(dockerignored(ignore, 'apps/dist/x.js')).toBe(false);
    expect(dockerignored(ignore, 'NOTES.md')).toBe(true);
    expect(dockerignored(ignore, 'README.md')).toBe(false);
  });
});

describe('docs/deploy.md', () => {
  const guide = readFileSync(join(root, 'docs/deploy.md'), 'utf8');
  // What a reader would type: fenced blocks and inline code spans.
  const code = [
    ...[...guide.matchAll(/```\w*\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, ' ')),
    ...[...guide.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!),
  ].join('\n');
  const scriptsOf = (workspace: string | undefined): Record<string, string> => {
    if (!workspace) return readJson('package.json').scripts;
    const dir = ['apps', 'packages']
      .flatMap((parent) => readdirSync(join(root, parent)).map((d) => `${parent}/${d}`))
      .find(
        (d) =>
          existsSync(join(root, d, 'package.json')) &&
          readJson(`${d}/package.json`).name === workspace,
      );
    expect(dir, workspace).toBeDefined();
    return readJson(`${dir}/package.json`).scripts;
  };

  it('names only npm scripts that exist', () => {
    const runs = [...code.matchAll(/npm run ([\w:-]+)(?: (?:-w|--workspace) (@ipfe\/[\w-]+))?/g)];
    expect(runs.length).toBeGreaterThan(3);
    for (const [text, script, workspace] of runs)
      expect(scriptsOf(workspace), text).toHaveProperty(script!);
  });

  it('names only compose services, containers, networks and files that exist', () => {
    const withValue = new Set(['--entrypoint', '-e', '--env', '-u', '--user', '-w', '--workdir']);
    const commands = [...code.matchAll(/docker compose (\w+)((?: [^\s'|<>]+)*)/g)];
    expect(commands.length).toBeGreaterThan(5);
    for (const [text, verb, rest] of commands) {
      const words = rest!.trim().split(/\s+/).filter(Boolean);
      let i = 0;
      while (words[i]?.startsWith('-')) i += withValue.has(words[i]!) ? 2 : 1;
      const target = words[i]?.split(':')[0];
      if (
        target === undefined ||
        (['build', 'up', 'ps', 'down'].includes(verb!) && i === words.length)
      )
        continue;
      expect(Object.keys(compose.services), text).toContain(target);
    }
    for (const [text, service] of code.matchAll(/docker attach ipfe-oam-([\w-]+)-1\b/g))
      expect(Object.keys(compose.services), text).toContain(service);
    for (const [text, network] of code.matchAll(/--network ipfe-oam_([\w-]+)/g))
      expect(Object.keys(compose.networks), text).toContain(network);
    for (const [, path] of code.matchAll(/^((?:apps|packages|deploy|scripts|docs)\/[\w./-]+)$/gm))
      if (!path!.startsWith('deploy/secrets'))
        expect(existsSync(join(root, path!)), path).toBe(true);
  });
});
