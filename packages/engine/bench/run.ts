/**
 * The engine's benchmark (issue 4): `npm run bench -w @ipfe/engine`. Prints a table and writes
 * bench/results.json with exactly the keys. Single-threaded JavaScript: one core.
 */
import { writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Engine, type OpenRequest } from '../src/index.ts';
import { buildMaglev, type MaglevServer } from '../src/maglev.ts';
import { configDocument, serverAddresses } from '../src/testing.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SERVERS = 32;
const ENTRIES = 1_000_000;
const TSA = '192.0.2.1';
const PORT = 3868;

/** 4,096 distinct client addresses; with the source port they make a million distinct keys. */
const SOURCES = Array.from({ length: 4096 }, (_, i) => `172.16.${i >> 8}.${i & 255}`);
function request(i: number): OpenRequest {
  return {
    protocol: 'tcp',
    sourceIp: SOURCES[i & 4095] ?? '',
    sourcePort: 1024 + (i >>> 12),
    tsa: TSA,
    port: PORT,
  };
}

function engineFor(algorithm: 'hash' | 'leastLoad', now: number): Engine {
  const servers = serverAddresses(SERVERS);
  const doc = configDocument({
    options: { monitorProtocol: algorithm === 'hash' ? 'disabled' : 'heartbeat' },
    targetSets: [
      {
        tsa: TSA,
        algorithm,
        deleteAgeSeconds: 600,
        leastLoad: { peerNodeAware: false },
        servers,
      },
    ],
  });
  const engine = new Engine(doc, now, { maxConnections: ENTRIES });
  servers.forEach((address, i) => {
    engine.heartbeat(
      address,
      {
        mps: 1000 + 37 * i,
        mpsCapacity: 10_000,
        connections: 5000 + 101 * i,
        connectionCapacity: 100_000,
      },
      now,
    );
  });
  return engine;
}

/** Opens ENTRIES new connections into an empty table; returns decisions per second. */
function openAll(engine: Engine, t0: number): number {
  const start = performance.now();
  for (let i = 0; i < ENTRIES; i++) {
    // One microsecond of simulated time per connection: a million new connections per second.
    const result = engine.open(request(i), t0 + i / 1000);
    if (!result.ok) throw new Error(`connection ${i} refused: ${result.reason}`);
  }
  return ENTRIES / ((performance.now() - start) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function heapBytes(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

// ── decisions ───────────────────────────────────────────────────────────────────────────────
const hashRuns: number[] = [];
const leastLoadRuns: number[] = [];
const lookupRuns: number[] = [];
let bytesPerEntry = Number.NaN;
for (let run = 0; run < 3; run++) {
  const t0 = 1_000_000;
  const before = heapBytes();
  const hash = engineFor('hash', t0);
  hashRuns.push(openAll(hash, t0));
  if (run === 0) bytesPerEntry = (heapBytes() - before) / ENTRIES;

  // Lookups of existing connections in a scattered order: i steps through 0..ENTRIES−1 by a
  // stride coprime with ENTRIES, so every lookup lands somewhere else in the table.
  const LOOKUPS = 3_000_000;
  let found = 0;
  let i = 0;
  const start = performance.now();
  for (let k = 0; k < LOOKUPS; k++) {
    i += 102_947;
    if (i >= ENTRIES) i -= ENTRIES;
    if (hash.lookup(request(i)) !== null) found++;
  }
  lookupRuns.push(LOOKUPS / ((performance.now() - start) / 1000));
  if (found !== LOOKUPS) throw new Error(`lookups found ${found} of ${LOOKUPS}`);

  const leastLoad = engineFor('leastLoad', t0);
  leastLoadRuns.push(openAll(leastLoad, t0));
}

// ── Maglev table ────────────────────────────────────────────────────────────────────────────
const M = 65537;
const weighted: MaglevServer[] = serverAddresses(SERVERS).map((id, i) => ({
  id,
  weight: 25 * (1 + (i % 16)),
}));
for (let i = 0; i < 20; i++) buildMaglev(weighted, M);
const buildTimes: number[] = [];
for (let i = 0; i < 50; i++) {
  const start = performance.now();
  buildMaglev(weighted, M);
  buildTimes.push(performance.now() - start);
}
const buildMs = median(buildTimes);

const table = buildMaglev(weighted, M);
const perWeight = weighted.map((s, i) => (table.counts[i] ?? 0) / s.weight);
const meanPerWeight = M / weighted.reduce((sum, s) => sum + s.weight, 0);
const balanceMaxOverMean = Math.max(...perWeight) / meanPerWeight;

const equal: MaglevServer[] = serverAddresses(SERVERS).map((id) => ({ id, weight: 100 }));
const full = buildMaglev(equal, M);
const moved: number[] = equal.map((_, removed) => {
  const rest = buildMaglev(
    equal.map((s, i) => (i === removed ? { ...s, weight: 0 } : s)),
    M,
  );
  let changed = 0;
  for (let e = 0; e < M; e++) if (full.entries[e] !== rest.entries[e]) changed++;
  return changed / M;
});
const disruptionPct = Math.max(...moved) * 100;
const disruptionMeanPct = (moved.reduce((a, b) => a + b, 0) / moved.length) * 100;

const results = {
  hashDecisionsPerSec: Math.round(median(hashRuns)),
  leastLoadDecisionsPerSec: Math.round(median(leastLoadRuns)),
  lookupsPerSec: Math.round(median(lookupRuns)),
  bytesPerEntry: Math.round(bytesPerEntry * 10) / 10,
  buildMs: Math.round(buildMs * 1000) / 1000,
  balanceMaxOverMean: Math.round(balanceMaxOverMean * 100_000) / 100_000,
  disruptionPct: Math.round(disruptionPct * 1000) / 1000,
};

const targets: Record<keyof typeof results, [string, (v: number) => boolean]> = {
  hashDecisionsPerSec: ['≥ 2,000,000', (v) => v >= 2_000_000],
  leastLoadDecisionsPerSec: ['≥ 1,000,000', (v) => v >= 1_000_000],
  lookupsPerSec: ['≥ 5,000,000', (v) => v >= 5_000_000],
  bytesPerEntry: ['≤ 200', (v) => v <= 200],
  buildMs: ['≤ 5', (v) => v <= 5],
  balanceMaxOverMean: ['≤ 1.01', (v) => v <= 1.01],
  disruptionPct: ['≤ 4.2', (v) => v <= 4.2],
};

console.log(`engine benchmark — Node ${process.version}, ${SERVERS} servers, ${ENTRIES} entries`);
console.table(
  Object.entries(results).map(([key, value]) => {
    const [target, ok] = targets[key as keyof typeof results];
    return { measure: key, value, target, met: ok(value) ? 'yes' : 'NO' };
  }),
);
console.log(
  `runs: hash ${hashRuns.map(Math.round).join(', ')}; least load ${leastLoadRuns.map(Math.round).join(', ')}; lookups ${lookupRuns.map(Math.round).join(', ')}; disruption mean ${disruptionMeanPct.toFixed(3)} %`,
);
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
