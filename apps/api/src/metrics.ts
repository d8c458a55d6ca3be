import { IPFE_SLOTS, SYNC_STATES } from '@ipfe/schema';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Label values of a request that matched no route (the GUI's deep links, 404s): one series. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds: an agent answers a push in milliseconds; the request timeout is 3 s by default. */
const PUSH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** A COMMIT is one fsync of the WAL (synchronous = FULL). */
const COMMIT_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** What the OAM's metrics read at scrape time. */
export interface MetricsSource {
  /** Per configured IPFE slot: its push record. */
  slots(): Promise<
    {
      slot: string;
      state: string;
      desiredRevision: number | null;
      appliedRevision: number | null;
    }[]
  >;
  activeAlarms(): Promise<{ slot: string; code: number; severity: string }[]>;
  latestRevision(): Promise<number>;
}

export interface OamMetrics {
  registry: Registry;
  pushAnswered(push: { slot: string; outcome: string; seconds: number }): void;
  request(labels: { method: string; route: string; status_code: string }, seconds: number): void;
  committed(seconds: number): void;
  trapSent(trap: { notification: string; outcome: string }): void;
}

/**
 * The OAM's own metrics, one registry per app (tests run several apps in one process). Values that
 * the OAM keeps anyway (push records, alarms, the latest revision) are read at scrape time; push
 * answers, requests and commits are counted as they happen. Every label takes a bounded set of
 * values: slots, alarm numbers and severities, route patterns, methods, status codes.
 */
export function createOamMetrics(source: MetricsSource): OamMetrics {
  const registry = new Registry();
  new Gauge({
    name: 'ipfe_oam_ipfe_desired_revision',
    help: 'The revision the OAM wants the IPFE to run, per configured slot',
    labelNames: ['slot'],
    registers: [registry],
    async collect() {
      const slots = await source.slots();
      this.reset();
      for (const s of slots)
        if (s.desiredRevision !== null) this.set({ slot: s.slot }, s.desiredRevision);
    },
  });
  new Gauge({
    name: 'ipfe_oam_ipfe_applied_revision',
    help: 'The revision the IPFE last applied or reported, per configured slot',
    labelNames: ['slot'],
    registers: [registry],
    async collect() {
      const slots = await source.slots();
      this.reset();
      for (const s of slots)
        if (s.appliedRevision !== null) this.set({ slot: s.slot }, s.appliedRevision);
    },
  });
  new Gauge({
    name: 'ipfe_oam_ipfe_sync_state',
    help: 'Where the push to the IPFE stands: 1 for its state, 0 for the others, per configured slot',
    labelNames: ['slot', 'state'],
    registers: [registry],
    async collect() {
      const slots = await source.slots();
      this.reset();
      for (const s of slots)
        for (const state of SYNC_STATES)
          this.set({ slot: s.slot, state }, s.state === state ? 1 : 0);
    },
  });
  new Gauge({
    name: 'ipfe_oam_revision',
    help: 'The latest committed revision (0 before the first)',
    registers: [registry],
    async collect() {
      this.set(await source.latestRevision());
    },
  });
  new Gauge({
    name: 'ipfe_oam_alarms_active',
    help: 'Active alarms, per IPFE slot, alarm number and severity',
    labelNames: ['slot', 'code', 'severity'],
    registers: [registry],
    async collect() {
      const alarms = await source.activeAlarms();
      this.reset();
      for (const a of alarms)
        this.inc({ slot: a.slot, code: String(a.code), severity: a.severity });
    },
  });
  const attempts = new Counter({
    name: 'ipfe_oam_push_attempts_total',
    help: 'Configuration pushes to the IPFE, counted when answered (or timed out), per slot',
    labelNames: ['slot'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'ipfe_oam_push_failures_total',
    help: 'Pushes not applied, per slot and reason: rejected (422, 401), stale (409), timeout, failed (no answer or another status)',
    labelNames: ['slot', 'reason'],
    registers: [registry],
  });
  const pushes = new Histogram({
    name: 'ipfe_oam_push_duration_seconds',
    help: 'Time from sending a push to its answer (or to the timeout), per slot and outcome',
    labelNames: ['slot', 'outcome'],
    buckets: PUSH_BUCKETS,
    registers: [registry],
  });
  // Series that exist before the first push, so that rate() sees the first one.
  for (const slot of IPFE_SLOTS) attempts.inc({ slot }, 0);
  const requests = new Histogram({
    name: 'ipfe_oam_http_request_duration_seconds',
    help: 'HTTP requests answered, per method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const commits = new Histogram({
    name: 'ipfe_oam_sqlite_commit_duration_seconds',
    help: 'Time of the COMMIT of each write transaction of the store (revisions, users, alarms; the name is of when SQLite was the only engine)',
    buckets: COMMIT_BUCKETS,
    registers: [registry],
  });
  const traps = new Counter({
    name: 'ipfe_oam_snmp_traps_total',
    help: 'SNMP traps of alarms, per notification (raised, cleared) and outcome (sent, failed), one per destination',
    labelNames: ['notification', 'outcome'],
    registers: [registry],
  });
  for (const notification of ['raised', 'cleared'])
    for (const outcome of ['sent', 'failed']) traps.inc({ notification, outcome }, 0);
  return {
    registry,
    pushAnswered({ slot, outcome, seconds }) {
      attempts.inc({ slot });
      if (outcome !== 'applied') failures.inc({ slot, reason: outcome });
      pushes.observe({ slot, outcome }, seconds);
    },
    request: (labels, seconds) => requests.observe(labels, seconds),
    committed: (seconds) => commits.observe(seconds),
    trapSent: ({ notification, outcome }) => traps.inc({ notification, outcome }),
  };
}

let processRegistry: Registry | null = null;
/** The library's process metrics (CPU, memory, event loop): one set per process, not per app. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * GET /metrics in the Prometheus text format, open like /api/health: a scraper has no session, and
 * the answer holds counts under bounded labels, never a secret, an address or an error text
 * (decision 011). Registered before the routes, so that every route's requests are timed.
 */
export default fp(
  async (app) => {
    const metrics = createOamMetrics({
      slots: async () => {
        const config = await app.configRepository.current();
        return app.agentSync.view(config).filter((s) => s.configured);
      },
      activeAlarms: () => app.agentSyncRepository.activeAlarms(),
      latestRevision: async () => (await app.configRepository.latestInfo())?.number ?? 0,
    });
    app.agentSync.onPushAnswered((push) => metrics.pushAnswered(push));
    app.snmpTraps.onTrap((trap) => metrics.trapSent(trap));
    app.store.onCommit((seconds) => metrics.committed(seconds));
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      metrics.request(
        { method: request.method, route, status_code: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
    });
    app.get(
      '/metrics',
      { config: { access: 'public' }, schema: { hide: true } },
      async (_, reply) => {
        const text = (await metrics.registry.metrics()) + (await processMetrics().metrics());
        return reply.type(metrics.registry.contentType).send(text);
      },
    );
  },
  {
    name: 'metrics',
    dependencies: ['db', 'config-repository', 'agent-sync-repository', 'agent-sync', 'snmp-traps'],
  },
);
