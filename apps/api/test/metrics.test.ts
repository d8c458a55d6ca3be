import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlarmsView, IpfeView } from '@ipfe/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, startApp, waitFor, type Client, type TestApp } from './helpers.ts';
import {
  familiesOf,
  promtoolCheck,
  promtoolMissing,
  samplesOf,
  valueOf,
  withoutLibraryDefaults,
} from './metrics-text.ts';
import { useTestApp } from './test-app.ts';

const OAM_FAMILIES = {
  ipfe_oam_ipfe_desired_revision: 'gauge',
  ipfe_oam_ipfe_applied_revision: 'gauge',
  ipfe_oam_ipfe_sync_state: 'gauge',
  ipfe_oam_revision: 'gauge',
  ipfe_oam_alarms_active: 'gauge',
  ipfe_oam_push_attempts_total: 'counter',
  ipfe_oam_push_failures_total: 'counter',
  ipfe_oam_push_duration_seconds: 'histogram',
  ipfe_oam_http_request_duration_seconds: 'histogram',
  ipfe_oam_sqlite_commit_duration_seconds: 'histogram',
};

describe('GET /metrics of the OAM alone', () => {
  const { t, admin } = useTestApp({ per: 'file', seed: true });
  const scrape = async () => {
    // As Prometheus asks: no cookie, no token.
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    return response;
  };

  it('answers the Prometheus text format without a session, not the GUI', async () => {
    const response = await scrape();
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.body).not.toContain('<html');
    const families = familiesOf(response.body);
    for (const [name, kind] of Object.entries(OAM_FAMILIES))
      expect(families.get(name), name).toBe(kind);
    // The library's process metrics come along; every other family is the OAM's own.
    for (const name of families.keys()) expect(name).toMatch(/^(ipfe_oam_|nodejs_|process_)/);
  });

  it('times requests by the route pattern, never by the URL asked for', async () => {
    await admin.get('/api/xsi-networks/no-such-network');
    await admin.get('/api/xsi-networks/another-one?secret=hunter2');
    await t.app.inject({ method: 'GET', url: '/some/deep/link?token=abc123' });
    const { body } = await scrape();
    const routes = new Set(
      samplesOf(body)
        .filter((s) => s.name === 'ipfe_oam_http_request_duration_seconds_count')
        .map((s) => s.labels.route),
    );
    expect(routes).toContain('/api/xsi-networks/:key');
    expect(routes).toContain('unmatched');
    for (const asked of ['no-such-network', 'another-one', 'hunter2', 'deep/link', 'abc123'])
      expect(body).not.toContain(asked);
    expect(
      valueOf(body, 'ipfe_oam_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/xsi-networks/:key',
        status_code: '404',
      }),
    ).toBe(2);
  });

  it('times the COMMIT of every write transaction, and shows the latest revision', async () => {
    const commits = async () =>
      valueOf((await scrape()).body, 'ipfe_oam_sqlite_commit_duration_seconds_count') ?? 0;
    const before = await commits();
    const response = await admin.post('/api/xsi-networks', {
      name: 'metrics',
      cidr: '10.9.0.0/16',
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(await commits()).toBe(before + 1);
    expect(valueOf((await scrape()).body, 'ipfe_oam_revision')).toBe(
      Number(response.headers['x-ipfe-revision']),
    );
  });

  it('passes promtool check metrics, the library defaults aside', async ({ skip }) => {
    skip(promtoolMissing !== null, promtoolMissing ?? '');
    const result = await promtoolCheck(withoutLibraryDefaults((await scrape()).body));
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });
});

/** The OAM with one real agent (A1) and one configured IPFE that nothing answers for (A2). */
describe('GET /metrics with IPFE agents', () => {
  const TOKEN = 'metrics-test-token-0123456789abcdefghijklmn';
  const A1 = '127.43.0.11';
  const A2 = '127.43.0.12';
  const stateDir = mkdtempSync(join(tmpdir(), 'ipfe-metrics-a1-'));
  const agentBin = new URL('../../agent/bin/ipfe-agent.js', import.meta.url).pathname;
  let agent: ChildProcess;
  let t: TestApp;
  let admin: Client;

  const scrape = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;

  beforeAll(async () => {
    agent = spawn(
      process.execPath,
      [agentBin, '--slot', 'A1', '--control', `${A1}:8701`, '--state-dir', stateDir],
      { env: { ...process.env, IPFE_AGENT_TOKEN: TOKEN, LOG_LEVEL: 'warn' }, stdio: 'ignore' },
    );
    // Up before the first push, so that every push to A1 is applied.
    await waitFor('agent A1', async () => (await fetch(`http://${A1}:8701/v1/health`)).ok);
    t = await startApp({
      agentToken: TOKEN,
      // No agent ever answers at A2: alarmed without the start grace.
      agentSync: { enabled: true, pollIntervalMs: 200, backoffMaxMs: 500, startGraceMs: 0 },
    });
    await t.app.ready();
    admin = await login(t.app);
    const response = await admin.edit('/api/options', {
      ipfe: { A1: { address: A1 }, A2: { address: A2 } },
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
  }, 30_000);

  afterAll(async () => {
    agent?.kill('SIGKILL');
    await t?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('shows per IPFE the desired and applied revision, pushes and their failures', async () => {
    const view = await waitFor('A1 synced and A2 unreachable', async () => {
      const v = (await admin.get('/api/ipfe')).json() as IpfeView;
      const [a1, a2] = ['A1', 'A2'].map((slot) => v.items.find((i) => i.slot === slot)!);
      return a1!.state === 'synced' && a2!.state === 'unreachable' ? v : undefined;
    });
    const body = await scrape();
    const latest = view.latestRevision;
    expect(valueOf(body, 'ipfe_oam_ipfe_desired_revision', { slot: 'A1' })).toBe(latest);
    expect(valueOf(body, 'ipfe_oam_ipfe_applied_revision', { slot: 'A1' })).toBe(latest);
    expect(valueOf(body, 'ipfe_oam_ipfe_desired_revision', { slot: 'A2' })).toBe(latest);
    expect(valueOf(body, 'ipfe_oam_ipfe_applied_revision', { slot: 'A2' })).toBeUndefined();
    // B1 and B2 are not configured: no revision, no state.
    expect(valueOf(body, 'ipfe_oam_ipfe_desired_revision', { slot: 'B1' })).toBeUndefined();
    expect(valueOf(body, 'ipfe_oam_ipfe_sync_state', { slot: 'B1' })).toBeUndefined();
    expect(valueOf(body, 'ipfe_oam_ipfe_sync_state', { slot: 'A1', state: 'synced' })).toBe(1);
    expect(valueOf(body, 'ipfe_oam_ipfe_sync_state', { slot: 'A1', state: 'pending' })).toBe(0);
    expect(valueOf(body, 'ipfe_oam_ipfe_sync_state', { slot: 'A2', state: 'unreachable' })).toBe(1);

    expect(valueOf(body, 'ipfe_oam_push_attempts_total', { slot: 'A1' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(body, 'ipfe_oam_push_failures_total', { slot: 'A1' })).toBeUndefined();
    const applied = { slot: 'A1', outcome: 'applied' };
    expect(valueOf(body, 'ipfe_oam_push_duration_seconds_count', applied)).toBeGreaterThanOrEqual(
      1,
    );
    // Nothing listens on A2's address: every push there fails, and each failure is an attempt.
    const failures = valueOf(body, 'ipfe_oam_push_failures_total', {
      slot: 'A2',
      reason: 'failed',
    });
    expect(failures).toBeGreaterThanOrEqual(1);
    expect(valueOf(body, 'ipfe_oam_push_attempts_total', { slot: 'A2' })).toBe(failures);
  });

  it('counts the active alarms by IPFE, number and severity as the Alarms page lists them', async () => {
    const alarms = await waitFor('an alarm on A2', async () => {
      const a = (await admin.get('/api/alarms')).json() as AlarmsView;
      return a.active.some((x) => x.slot === 'A2') ? a : undefined;
    });
    const expected = new Map<string, number>();
    for (const a of alarms.active) {
      const key = `${a.slot} ${a.code} ${a.severity}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    const counted = new Map(
      samplesOf(await scrape())
        .filter((s) => s.name === 'ipfe_oam_alarms_active')
        .map((s) => [`${s.labels.slot} ${s.labels.code} ${s.labels.severity}`, s.value]),
    );
    expect(counted).toEqual(expected);
  });

  it('passes promtool check metrics, the OAM and the agent alike, the library defaults aside', async ({
    skip,
  }) => {
    skip(promtoolMissing !== null, promtoolMissing ?? '');
    const oam = await promtoolCheck(withoutLibraryDefaults(await scrape()));
    expect(oam.output).toBe('');
    expect(oam.code).toBe(0);

    const response = await fetch(`http://${A1}:8701/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(familiesOf(text).get('ipfe_connections_active')).toBe('gauge');
    const checked = await promtoolCheck(withoutLibraryDefaults(text));
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
  });
});
