import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { EngineCounters } from '@ipfe/engine';
import type { AgentBgpStatus } from '@ipfe/schema';
import type { MeasurementSeries } from './measurements-view.ts';

export interface AgentCounts {
  heartbeats: Map<string, number>;
  malformedHeartbeats: Map<string, number>;
  bytes: Map<string, { in: number; out: number }>;
  configApplies: number;
  configRejects: number;
  failovers: number;
}

export function newCounts(): AgentCounts {
  return {
    heartbeats: new Map(),
    malformedHeartbeats: new Map(),
    bytes: new Map(),
    configApplies: 0,
    configRejects: 0,
    failovers: 0,
  };
}

/**
 * Prometheus metrics (SPEC §4.6), read at scrape time from the engine's counters and the agent's
 * own: one registry per agent, so several agents can share a test process.
 */
export function createMetrics(source: {
  slot: string;
  engine(): EngineCounters | null;
  counts: AgentCounts;
  activeAlarms(): { code: number }[];
  /** The BGP speaker's sessions and announcements (active-active), or null. */
  bgp?: () => AgentBgpStatus | null;
  /** The source product's measurements (measurements-view.ts), and whether Accounting is on. */
  measurements?: () => { series: MeasurementSeries; accounting: boolean };
}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ slot: source.slot });
  collectDefaultMetrics({ register: registry });

  const fromEngine = <T>(fn: (c: EngineCounters) => T[]): T[] => {
    const counters = source.engine();
    return counters ? fn(counters) : [];
  };
  const perServer = (c: EngineCounters) =>
    c.targetSets.flatMap((ts) => ts.servers.map((s) => ({ ts: String(ts.number), ...s })));

  new Counter({
    name: 'ipfe_connections_opened_total',
    help: 'Connections forwarded, per Target Set and server',
    labelNames: ['target_set', 'server'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of fromEngine(perServer))
        this.inc({ target_set: s.ts, server: s.address }, s.opened);
    },
  });
  new Gauge({
    name: 'ipfe_connections_active',
    help: 'Open connections, per Target Set and server',
    labelNames: ['target_set', 'server'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of fromEngine(perServer))
        this.set({ target_set: s.ts, server: s.address }, s.active);
    },
  });
  new Counter({
    name: 'ipfe_connections_expired_total',
    help: 'Connections closed idle at Delete Age, per Target Set and server',
    labelNames: ['target_set', 'server'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of fromEngine(perServer))
        this.inc({ target_set: s.ts, server: s.address }, s.expired);
    },
  });
  new Counter({
    name: 'ipfe_connections_refused_total',
    help: 'Connections refused, per Target Set and reason; reason "no-server" is the source product’s TxReject (no server could take the connection)',
    labelNames: ['target_set', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      const counters = source.engine();
      if (!counters) return;
      for (const [reason, n] of Object.entries(counters.refused))
        this.inc({ target_set: '', reason }, n as number);
      for (const ts of counters.targetSets) {
        for (const [reason, n] of Object.entries(ts.refused)) {
          this.inc({ target_set: String(ts.number), reason }, n as number);
        }
      }
    },
  });
  new Gauge({
    name: 'ipfe_connection_table_entries',
    help: 'Entries in the connection table',
    registers: [registry],
    collect() {
      this.set(source.engine()?.connections ?? 0);
    },
  });
  new Counter({
    name: 'ipfe_bytes_total',
    help: 'Bytes forwarded per TSA: in = client to server, out = server to client',
    labelNames: ['tsa', 'direction'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [tsa, b] of source.counts.bytes) {
        this.inc({ tsa, direction: 'in' }, b.in);
        this.inc({ tsa, direction: 'out' }, b.out);
      }
    },
  });
  new Counter({
    name: 'ipfe_heartbeats_total',
    help: 'Heartbeats received, per server',
    labelNames: ['server'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [server, n] of source.counts.heartbeats) this.inc({ server }, n);
    },
  });
  new Counter({
    name: 'ipfe_heartbeats_malformed_total',
    help: 'Heartbeat lines ignored as malformed, per server',
    labelNames: ['server'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [server, n] of source.counts.malformedHeartbeats) this.inc({ server }, n);
    },
  });
  addMeasurements(registry, source.measurements);
  const simple = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  simple('ipfe_config_applies_total', 'Configurations applied', () => source.counts.configApplies);
  simple('ipfe_config_rejects_total', 'Configurations rejected', () => source.counts.configRejects);
  simple('ipfe_failovers_total', 'TSAs taken over from the mate', () => source.counts.failovers);
  new Gauge({
    name: 'ipfe_alarms_active',
    help: 'Active alarms, per alarm number',
    labelNames: ['code'],
    registers: [registry],
    collect() {
      this.reset();
      for (const alarm of source.activeAlarms()) this.inc({ code: String(alarm.code) });
    },
  });
  new Gauge({
    name: 'ipfe_bgp_session_up',
    help: 'Whether the BGP session to an upstream router is established (1) or not (0)',
    labelNames: ['peer'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of source.bgp?.()?.sessions ?? [])
        this.set({ peer: s.peer }, s.state === 'established' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'ipfe_bgp_announced',
    help: 'TSA prefixes this node announces over BGP now (1 each)',
    labelNames: ['prefix'],
    registers: [registry],
    collect() {
      this.reset();
      for (const prefix of source.bgp?.()?.announced ?? []) this.set({ prefix }, 1);
    },
  });
  return registry;
}

/**
 * The source product's measurements (issue 27 item 4), its name in each HELP. A series a data path
 * does not count is absent. While Accounting is off the packet and byte measurements stand still.
 */
function addMeasurements(
  registry: Registry,
  read: (() => { series: MeasurementSeries; accounting: boolean }) | undefined,
) {
  const series = () => read?.().series;
  const perTsa = (
    name: string,
    help: string,
    pick: (s: MeasurementSeries) => { targetSet: number; tsa: string; value: number }[] | null,
  ) =>
    new Counter({
      name,
      help,
      labelNames: ['target_set', 'tsa'],
      registers: [registry],
      collect() {
        this.reset();
        const values = series();
        for (const v of (values && pick(values)) ?? [])
          this.inc({ target_set: String(v.targetSet), tsa: v.tsa }, v.value);
      },
    });
  perTsa(
    'ipfe_tsa_rx_bytes_total',
    'RxTsaBytes: bytes received for the TSA (IP packets; on the user-space path, its connections’ payload)',
    (s) => s.rxBytes,
  );
  perTsa(
    'ipfe_tsa_rx_sctp_bytes_total',
    'RxTsaBytesSctp: SCTP bytes received for the TSA (not counted on the user-space path, which forwards no SCTP)',
    (s) => s.rxSctpBytes,
  );
  new Counter({
    name: 'ipfe_server_tx_bytes_total',
    help: 'TxAsBytes: bytes sent to the application server for the TSA (on the user-space path, payload)',
    labelNames: ['target_set', 'tsa', 'server'],
    registers: [registry],
    collect() {
      this.reset();
      for (const v of series()?.txBytes ?? [])
        this.inc({ target_set: String(v.targetSet), tsa: v.tsa, server: v.server }, v.value);
    },
  });
  new Counter({
    name: 'ipfe_tsa_unexpected_packets_total',
    help: 'TsaUnexpctedTcp (protocol "tcp"), TsaUnexpctedSctp (protocol "sctp"): packets to the TSA that belong to no known connection and do not open one, or of a protocol its Target Set does not carry (not counted on the user-space path, which sees no packets)',
    labelNames: ['target_set', 'tsa', 'protocol'],
    registers: [registry],
    collect() {
      this.reset();
      for (const v of series()?.unexpected ?? [])
        this.inc({ target_set: String(v.targetSet), tsa: v.tsa, protocol: v.protocol }, v.value);
    },
  });
  new Gauge({
    name: 'ipfe_accounting',
    help: 'Options › Accounting: 1 while on; while 0 the packet and byte measurements (RxTsaBytes, RxTsaBytesSctp, TxAsBytes, TsaUnexpcted*) stand still',
    registers: [registry],
    collect() {
      this.set(read?.().accounting === false ? 0 : 1);
    },
  });
}
