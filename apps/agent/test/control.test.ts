import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { ask } from './loopback-peers.ts';
import { documentOf, loopbackLab, TOKEN, type RunningAgent } from './loopback-lab.ts';
import { until } from './poll.ts';

const lab = loopbackLab(import.meta.url);
let agent: RunningAgent;
const auth = { authorization: `Bearer ${TOKEN}` };

const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

beforeAll(async () => {
  await lab.startAppServers();
  agent = await lab.startAgent({ holdOffMs: 0, logStream });
  expect((await agent.push(documentOf(5, lab.config()))).status).toBe(200);
  await until('the TSA served', () => ask(lab.tsa));
});

/** After every refused push the old configuration still forwards. */
async function stillForwards() {
  expect(lab.servers).toContain(await ask(lab.tsa));
  const status = await agent.status();
  expect(status.revision).toBe(5);
}

describe('PUT /v1/config', () => {
  it('answers 401 to a missing or wrong token, constant-time compared', async () => {
    expect((await agent.push(documentOf(6, lab.config()), 'x'.repeat(TOKEN.length))).status).toBe(
      401,
    );
    const missing = await fetch(`${agent.url}/v1/config`, {
      method: 'PUT',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(missing.status).toBe(401);
    expect((await fetch(`${agent.url}/v1/status`)).status).toBe(401);
    expect((await fetch(`${agent.url}/metrics`)).status).toBe(401);
    await stillForwards();
  });

  it('answers 422 with field paths to an invalid document and keeps the running config', async () => {
    const invalid = documentOf(6, lab.config());
    (invalid.config.targetSets[0]!.servers[0] as { weight: number }).weight = 70000;
    const response = await agent.push(invalid);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; fields: { path: string }[] } };
    expect(body.error.code).toBe('INVALID_CONFIG');
    expect(body.error.fields.map((f) => f.path)).toContain('config.targetSets.0.servers.0.weight');
    await stillForwards();
    const rejected = (await agent.status()).alarms.find((x) => x.code === 5150);
    expect(rejected?.text).toBe(
      'Configuration rejected: Target Set 1: IP List row 1: Weighting must be a whole number from 0 to 65535',
    );
  });

  it('answers 422 to a document whose SHA-256 does not match, and to a body that is not JSON', async () => {
    const tampered = { ...documentOf(6, lab.config()), sha256: 'f'.repeat(64) };
    const response = await agent.push(tampered);
    expect(response.status).toBe(422);
    expect(
      ((await response.json()) as { error: { fields: { path: string }[] } }).error.fields[0]!.path,
    ).toBe('sha256');
    expect((await agent.push('{"formatVersion": 1,')).status).toBe(422);
    await stillForwards();
  });

  it('answers 413 to an oversize body', async () => {
    expect((await agent.push(JSON.stringify({ pad: 'x'.repeat(5 * 1024 * 1024) }))).status).toBe(
      413,
    );
    await stillForwards();
  });

  it('answers 409 to an older revision and is idempotent for the applied one', async () => {
    const stale = await agent.push(documentOf(4, lab.config()));
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: { code: string } }).error.code).toBe('STALE_REVISION');
    const same = await agent.push(documentOf(5, lab.config()));
    expect(same.status).toBe(200);
    const other = await agent.push(
      documentOf(
        5,
        lab.config((c) => (c.targetSets[0]!.deleteAgeSeconds = 900)),
      ),
    );
    expect(other.status).toBe(409);
    await stillForwards();
  });

  it('applies a newer revision, answers its digest, persists it, and clears the rejection alarm', async () => {
    const next = documentOf(
      6,
      lab.config((c) => (c.targetSets[0]!.deleteAgeSeconds = 900)),
    );
    const response = await agent.push(next);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ revision: 6, sha256: next.sha256 });
    expect(JSON.parse(readFileSync(agent.agent.store.path, 'utf8')).revision).toBe(6);
    const fetched = await (await fetch(`${agent.url}/v1/config`, { headers: auth })).json();
    expect(fetched).toEqual(next);
    expect((await agent.status()).alarms.map((x) => x.code)).not.toContain(5150);
    const metrics = await agent.metrics();
    // Three rejections above: an invalid document, a wrong digest, a body that is not JSON.
    expect(metrics).toMatch(/^ipfe_config_rejects_total\{slot="A1"\} 3$/m);
  });

  it('answers health without a token', async () => {
    expect(await (await fetch(`${agent.url}/v1/health`)).json()).toEqual({
      status: 'ok',
      slot: 'A1',
      revision: 6,
    });
  });
});

describe('secrets', () => {
  it('never writes the token to its log, whatever was pushed', () => {
    const log = logLines.join('');
    expect(log).toMatch(/configuration applied/);
    expect(log).not.toContain(TOKEN);
  });
});

describe('start', () => {
  it('forwards with the persisted configuration when restarted while the OAM is down', async () => {
    await agent.stop();
    agent = await lab.startAgent({ dir: agent.dir, holdOffMs: 0 });
    await until('revision 6 from disk', async () => (await agent.status()).revision === 6);
    await until('the TSA served again', () => ask(lab.tsa));
  });
});
