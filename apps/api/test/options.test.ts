import { describe, expect, it } from 'vitest';
import { configDocumentSchema, type ConfigDocument } from '@ipfe/schema';
import { canonicalJson, digestOf } from '@ipfe/schema/digest';
import { fieldsOf, leastLoadTargetSet, seedPrerequisites, snapshot } from './helpers.ts';
import { useTestApp } from './test-app.ts';

const { t, admin } = useTestApp();

describe('/api/options', () => {
  it('answers the defaults before any commit, with an ETag', async () => {
    const response = await admin.get('/api/options');
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(response.json()).toEqual({
      ipfe: { A1: null, A2: null, B1: null, B2: null },
      mateHeartbeatPort: 19041,
      mateIntervalMs: 100,
      mateTimeoutMs: 3000,
      tcpRejectOption: 'tcpReset',
      sctpRejectOption: 'drop',
      forwardedPorts: [3868],
      monitorProtocol: 'heartbeat',
      monitoringPort: 9675,
      connectTimeoutS: 3,
      connectTryIntervalS: 1,
      leastLoadThreshold: 0,
      imbalanceThresholdPct: 20,
      imbalanceMinPps: 20000,
      accounting: true,
      packetRateLimitPps: 500000,
      bgp: null,
    });
  });

  it('commits a change as a revision and returns the new ETag', async () => {
    const response = await admin.edit('/api/options', {
      ipfe: { A1: { address: '127.250.0.11', agentPort: 9701 } },
      forwardedPorts: [3868, 3869],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().ipfe.A1).toEqual({ address: '127.250.0.11', agentPort: 9701 });
    expect(response.headers['x-ipfe-revision']).toBe('1');
    expect(await t.app.configRepository.latestInfo()).toMatchObject({
      number: 1,
      author: 'admin',
      summary: 'Edit IPFE options',
    });
    expect((await admin.get('/api/options')).headers.etag).toBe(response.headers.etag);
  });

  it.each([
    [
      { connectTimeoutS: 1 },
      'connectTimeoutS',
      'Connect timeout: 1 s is refused (too short for reliable detection)',
    ],
    [
      { mateIntervalMs: 2000, mateTimeoutMs: 5000 },
      'mateTimeoutMs',
      /at least 3 × the beacon interval \(6000 ms\)/,
    ],
    [{ forwardedPorts: [3868, 3868] }, 'forwardedPorts.1', 'Forwarded port 3868 is listed twice'],
    [{ forwardedPorts: [] }, 'forwardedPorts', 'At least one forwarded port is needed'],
    [
      { ipfe: { A1: { address: '127.250.0.11' }, A2: { address: '127.250.0.11' } } },
      'ipfe.A2.address',
      /already the address of IPFE A1/,
    ],
    [{ monitorProtocol: 'snmp' }, 'monitorProtocol', /one of: heartbeat, tcpConnectOnly, disabled/],
    [{ imbalanceThresholdPct: 0 }, 'imbalanceThresholdPct', /from 1 to 100/],
    [{ sctpRejectOption: 'tcpReset' }, 'sctpRejectOption', /one of: drop, icmpHostUnreachable/],
    [{ tcpRejectOption: 'icmpNetUnreachable' }, 'tcpRejectOption', /icmpAdminProhibited/],
    [{ packetRateLimitPps: 999 }, 'packetRateLimitPps', /from 1000 to 10000000/],
    [{ packetRateLimitPps: '500000' }, 'packetRateLimitPps', /whole number/],
    [{ imbalanceMinPps: -1 }, 'imbalanceMinPps', /from 0 to 10000000/],
    [{ accounting: 'disabled' }, 'accounting', 'Accounting must be true or false'],
  ])('refuses %j at %s', async (body, path, message) => {
    const before = await snapshot(t.app);
    const response = await admin.edit('/api/options', body);
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)[path]).toMatch(message);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('keeps the options of issue 27 as given: reject choices, rate limit, imbalance minimum, accounting', async () => {
    const response = await admin.edit('/api/options', {
      tcpRejectOption: 'icmpAdminProhibited',
      sctpRejectOption: 'icmpPortUnreachable',
      packetRateLimitPps: 250_000,
      imbalanceMinPps: 0,
      accounting: false,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect((await admin.get('/api/options')).json()).toMatchObject({
      tcpRejectOption: 'icmpAdminProhibited',
      sctpRejectOption: 'icmpPortUnreachable',
      packetRateLimitPps: 250_000,
      imbalanceMinPps: 0,
      accounting: false,
    });
  });

  it("keeps an Active IPFE's address read-only while a Target Set uses it", async () => {
    await seedPrerequisites(admin);
    await admin.post('/api/target-sets', leastLoadTargetSet());
    const moved = await admin.edit('/api/options', {
      ipfe: { A1: { address: '127.250.0.21' }, A2: { address: '127.250.0.12' } },
    });
    expect(moved.statusCode).toBe(400);
    expect(fieldsOf(moved)['ipfe.A1.address']).toBe(
      'This field cannot be changed: Target Set 1 is served through IPFE A1',
    );
    // The standby may go: the Target Set's standby becomes none.
    const standbyGone = await admin.edit('/api/options', {
      ipfe: { A1: { address: '127.250.0.11' } },
    });
    expect(standbyGone.statusCode).toBe(200);
    expect((await admin.get('/api/target-sets/1')).json().primary.standbyIpfe).toBeNull();
  });

  it('refuses to leave heartbeat monitoring while Target Sets use Least Load, naming all of them, on the options page too', async () => {
    await seedPrerequisites(admin);
    for (const i of [1, 2, 3]) {
      const inserted = await admin.post(
        '/api/target-sets',
        leastLoadTargetSet({
          primary: { address: `127.1.0.${100 + i}` },
          servers: [{ address: `127.1.1.${i}` }],
        }),
      );
      expect(inserted.statusCode, inserted.body).toBe(201);
    }
    const current = (await admin.get('/api/options')).json();
    const response = await admin.edit('/api/options', {
      ...current,
      monitorProtocol: 'tcpConnectOnly',
    });
    expect(response.statusCode).toBe(400);
    // One refusal, on the field being changed, naming every Target Set in the way; no pointer
    // to the page the operator is on.
    expect(response.json().error).toEqual({
      code: 'VALIDATION',
      message:
        'Monitoring protocol: Only Heartbeat monitoring supports Least Load, the algorithm of Target Sets 1, 2 and 3',
      fields: [
        {
          path: 'monitorProtocol',
          message:
            'Only Heartbeat monitoring supports Least Load, the algorithm of Target Sets 1, 2 and 3',
        },
      ],
    });
  });

  it('serves a revision saved before issue 27 with the defaults of the options it lacks, as an agent accepts it', async () => {
    await admin.edit('/api/options', { ipfe: { A1: { address: '127.250.0.11' } } });
    const saved = (await admin.get('/api/revisions/1')).json() as ConfigDocument;
    // What an older release stored: no SCTP reject option, rate limit, minimum or accounting.
    const options: Record<string, unknown> = { ...saved.config.options, tcpRejectOption: 'drop' };
    for (const key of ['sctpRejectOption', 'packetRateLimitPps', 'imbalanceMinPps', 'accounting'])
      delete options[key];
    const config = { ...saved.config, options };
    const old = { formatVersion: 1, revision: 2, sha256: digestOf(config), config };
    await t.app.store.db
      .insertInto('revisions')
      .values({
        number: 2,
        author: 'older release',
        created_at: new Date().toISOString(),
        summary: 'Saved before issue 27',
        sha256: old.sha256,
        document: canonicalJson(old),
      })
      .execute();

    const read = await admin.get('/api/options');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      tcpRejectOption: 'drop',
      sctpRejectOption: 'drop',
      packetRateLimitPps: 500000,
      imbalanceMinPps: 20000,
      accounting: true,
    });
    // The document an agent is pushed: its digest is that of the configuration as it parses it.
    const pushed = await t.app.configRepository.document(2);
    const parsed = configDocumentSchema.parse(pushed);
    expect(digestOf(parsed.config)).toBe(pushed!.sha256);
    // Saving it unchanged is no change, and a change is a revision with every option.
    const unchanged = await admin.put('/api/options', read.json(), read.headers.etag as string);
    expect(unchanged.statusCode).toBe(200);
    expect(unchanged.headers['x-ipfe-unchanged']).toBe('true');
    const current = read.json() as Record<string, unknown>;
    const changed = await admin.edit('/api/options', { ...current, accounting: false });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await admin.get('/api/revisions/3')).json().config.options).toMatchObject({
      sctpRejectOption: 'drop',
      accounting: false,
    });
  });
});
