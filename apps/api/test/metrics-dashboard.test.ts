import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createMetrics, newCounts } from '../../agent/src/metrics.ts';
import { familiesOf, promtoolMissing } from './metrics-text.ts';
import { useTestApp } from './test-app.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Panel {
  title?: string;
  type: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string; datasource?: { uid: string } }[];
  panels?: Panel[];
}
const dashboard = JSON.parse(read('deploy/grafana/ipfe-dashboard.json')) as {
  uid: string;
  panels: Panel[];
  templating: { list: { query?: unknown }[] };
};
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queries = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, ...t })));

const PROMQL_WORDS = new Set(
  'by without on ignoring group_left group_right bool offset and or unless inf nan'.split(' '),
);
/** The metric names a PromQL expression reads: its identifiers less functions, labels and keywords. */
function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)]
    .filter(([, name, call]) => !call && !PROMQL_WORDS.has(name!.toLowerCase()))
    .map(([, name]) => name!);
}

/** The series names a scrape can hold: histograms as their _bucket, _sum and _count. */
function seriesNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [name, kind] of familiesOf(text)) {
    if (kind === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    else names.add(name);
  }
  return names;
}

describe('the Grafana dashboard', () => {
  const { t } = useTestApp({ per: 'file', login: false });

  it('reads only metrics that the OAM and the agent export, and shows every OAM metric', async () => {
    const oam = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const agent = await createMetrics({
      slot: 'A1',
      engine: () => null,
      counts: newCounts(),
      activeAlarms: () => [],
      // An IPFE of an active-active Target Set: its BGP series exist only then.
      bgp: () => ({
        sessions: [{ peer: '192.0.2.1', state: 'established', bfd: 'up' }],
        announced: ['192.0.2.10/32'],
      }),
    }).metrics();
    const exported = new Set([...seriesNames(oam), ...seriesNames(agent)]);

    expect(queries.length).toBeGreaterThan(10);
    const read = new Set<string>();
    for (const { panel, expr } of queries) {
      const names = metricNamesOf(expr);
      expect(names, `${panel}: ${expr} names a metric`).not.toEqual([]);
      for (const name of names) {
        expect(exported.has(name), `${panel}: ${expr}: ${name} is exported`).toBe(true);
        read.add(name.replace(/_(bucket|sum|count)$/, ''));
      }
    }
    for (const [name] of familiesOf(oam))
      if (name.startsWith('ipfe_oam_')) expect(read, `a panel shows ${name}`).toContain(name);
    // No template variable runs a query of its own that the check above would not see.
    expect(dashboard.templating.list.filter((v) => v.query !== undefined)).toEqual([]);
  });

  it('tells a metric name from PromQL around it', () => {
    expect(
      metricNamesOf(
        'histogram_quantile(0.99, sum by (le, route) (rate(ipfe_oam_http_request_duration_seconds_bucket{route!="x"}[5m])))',
      ),
    ).toEqual(['ipfe_oam_http_request_duration_seconds_bucket']);
    expect(metricNamesOf('ipfe_a / on (slot) group_left ipfe_b > bool 0')).toEqual([
      'ipfe_a',
      'ipfe_b',
    ]);
  });

  it('asks the data source that Grafana is provisioned with', () => {
    const provisioned = parse(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { uid: string; type: string; url: string }[];
    };
    const [source] = provisioned.datasources;
    for (const p of panels.filter((p) => p.type !== 'row')) {
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: source!.uid });
      for (const target of p.targets ?? [])
        expect(target.datasource?.uid, p.title).toBe(source!.uid);
    }
  });
});

interface Service {
  image?: string;
  profiles?: string[];
  volumes?: string[];
  secrets?: string[];
  command?: string[];
  environment?: Record<string, string>;
  networks: Record<string, { ipv4_address: string }>;
  ports?: string[];
}

describe('the compose profile monitoring', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, Service>;
  };
  const { prometheus, grafana } = compose.services;
  const mounted = (service: Service, target: string) =>
    service.volumes!.find((v) => v.split(':')[1] === target)?.split(':')[0];

  it('adds Prometheus and Grafana only when asked for, published on loopback', () => {
    const monitoring = Object.entries(compose.services).filter(([, s]) =>
      s.profiles?.includes('monitoring'),
    );
    expect(monitoring.map(([name, s]) => [name, s.profiles])).toEqual([
      ['prometheus', ['monitoring']],
      ['grafana', ['monitoring']],
    ]);
    expect(prometheus!.ports).toEqual(['127.0.0.1:9090:9090']);
    expect(grafana!.ports).toEqual(['127.0.0.1:3000:3000']);
  });

  it('mounts the repository files it names, the dashboard among them', () => {
    for (const service of [prometheus!, grafana!])
      for (const volume of service.volumes!) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('./')) expect(existsSync(join(root, source)), volume).toBe(true);
      }
    expect(mounted(grafana!, '/etc/grafana/dashboards/ipfe-dashboard.json')).toBe(
      './deploy/grafana/ipfe-dashboard.json',
    );
    const providers = parse(read('deploy/grafana/provisioning/dashboards/ipfe.yml')) as {
      providers: { options: { path: string } }[];
    };
    expect(providers.providers[0]!.options.path).toBe('/etc/grafana/dashboards');
    const source = parse(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { url: string }[];
    };
    const port = prometheus!.ports![0]!.split(':').at(-1);
    expect(source.datasources[0]!.url).toBe(
      `http://${prometheus!.networks.backend!.ipv4_address}:${port}`,
    );
  });

  it('scrapes the OAM and every agent where compose runs them, the agents with the push token', () => {
    const file = mounted(prometheus!, '/etc/prometheus/prometheus.yml')!;
    const config = parse(read(file)) as {
      scrape_configs: {
        job_name: string;
        authorization?: { credentials_file: string };
        static_configs: { targets: string[] }[];
      }[];
    };
    const jobs = Object.fromEntries(config.scrape_configs.map((j) => [j.job_name, j]));
    const oam = compose.services.oam!;
    expect(jobs['ipfe-oam']!.static_configs[0]!.targets).toEqual([
      `${oam.networks.backend!.ipv4_address}:${oam.environment!.PORT}`,
    ]);
    const agents = Object.entries(compose.services).filter(([name]) => name.startsWith('ipfe-'));
    const controls = agents.map(([, s]) => s.command![s.command!.indexOf('--control') + 1]);
    expect(jobs['ipfe-agents']!.static_configs[0]!.targets).toEqual(controls);
    expect(jobs['ipfe-agents']!.authorization!.credentials_file).toBe('/run/secrets/agent_token');
    expect(prometheus!.secrets).toEqual(['agent_token']);
  });

  it('gives Prometheus a configuration that promtool check config accepts', async ({ skip }) => {
    skip(promtoolMissing !== null, promtoolMissing ?? '');
    const dir = mkdtempSync(join(tmpdir(), 'ipfe-prometheus-'));
    try {
      // promtool opens the credentials file: a stand-in for the secret compose mounts.
      const token = join(dir, 'agent_token');
      writeFileSync(token, 'x'.repeat(43));
      const config = join(dir, 'prometheus.yml');
      writeFileSync(
        config,
        read('deploy/prometheus/prometheus.yml').replace('/run/secrets/agent_token', token),
      );
      const { stdout } = await promisify(execFile)('promtool', ['check', 'config', config]);
      expect(stdout).toContain('SUCCESS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
