import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AGENT_PORT_DEFAULT,
  BFD_INTERVAL_MS,
  BFD_MULTIPLIER,
  MATE_HEARTBEAT_PORT_DEFAULT,
  MATE_INTERVAL_MS,
  IMBALANCE_MIN_PPS,
  MONITORING_PORT_DEFAULT,
  PACKET_RATE_LIMIT_PPS,
  PORT,
  WEIGHT,
  configurationSchema,
  emptyConfiguration,
} from '@ipfe/schema';
import { configuration } from './arbitraries.ts';
import { readSourceCsv } from './read.ts';
import { TABLES } from './tables.ts';
import { writeSourceCsv } from './write.ts';

describe('the source CSV mapping', () => {
  it('reads back exactly the configuration it wrote', () => {
    fc.assert(
      fc.property(configuration, (config) => {
        expect(configurationSchema.safeParse(config).error?.issues ?? []).toEqual([]);
        const read = readSourceCsv(writeSourceCsv(config), emptyConfiguration());
        expect(read.problems).toEqual([]);
        expect(read.notImported).toEqual([]);
        expect(read.config).toEqual(config);
      }),
      { numRuns: 150 },
    );
  });

  it('never throws on any text, and a file it takes passes every rule', () => {
    // One seed, new each run, draws the corpus and the files made of it: the seed fc.assert prints
    // on a failure, put here in place of the random one, reproduces both.
    const seed = (Math.random() * 0x1_0000_0000) | 0;
    const sample = fc.sample(configuration, { numRuns: 20, seed });
    const lines = sample.flatMap((c) => writeSourceCsv(c).split('\r\n'));
    // A line of a valid file with one cell replaced by anything.
    const mutated = fc
      .record({
        line: fc.constantFrom(...lines),
        at: fc.nat(40),
        cell: fc.string({ maxLength: 12 }),
      })
      .map(({ line, at, cell }) => {
        const cells = line.split(',');
        cells[1 + (at % Math.max(1, cells.length - 1))] = cell;
        return cells.join(',');
      });
    const file = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc
        .array(
          fc.oneof(
            fc.constantFrom(...lines),
            mutated,
            fc
              .array(
                fc.oneof(
                  fc.string({ maxLength: 8 }),
                  fc.constantFrom('IpfeListTsa', '1', '"', 'Yes'),
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
      fc.property(file, (text) => {
        const read = readSourceCsv(text, emptyConfiguration());
        if (read.config) expect(configurationSchema.safeParse(read.config).success).toBe(true);
        else expect(read.problems.length).toBeGreaterThan(0);
        for (const p of read.problems) expect(p.message).toMatch(/\w/);
      }),
      { numRuns: 500, seed },
    );
  });

  it('is the mapping docs/migration.md lists, every table and column', () => {
    const doc = readFileSync(new URL('../../../../../docs/migration.md', import.meta.url), 'utf8');
    for (const table of TABLES) {
      expect(doc).toContain(`\`${table.name}\``);
      const columns = [...table.columns, ...(table.numbered?.columns(1) ?? [])];
      for (const column of columns)
        expect(doc, `${table.name}.${column.name}`).toContain(`\`${column.name}\``);
    }
  });

  it('gives the ranges and defaults the schema has', () => {
    const doc = readFileSync(new URL('../../../../../docs/migration.md', import.meta.url), 'utf8');
    const port = (byDefault: number) => ({ ...PORT, default: byDefault });
    const limits: Record<string, { min: number; max: number; default: number }> = {
      'ipfe.A1.agentPort': port(AGENT_PORT_DEFAULT),
      mateHeartbeatPort: port(MATE_HEARTBEAT_PORT_DEFAULT),
      mateIntervalMs: MATE_INTERVAL_MS,
      monitoringPort: port(MONITORING_PORT_DEFAULT),
      'bgp.bfdIntervalMs': BFD_INTERVAL_MS,
      'bgp.bfdMultiplier': BFD_MULTIPLIER,
      'servers[N−1].weight': WEIGHT,
      imbalanceMinPps: IMBALANCE_MIN_PPS,
      packetRateLimitPps: PACKET_RATE_LIMIT_PPS,
    };
    const rows = [...doc.matchAll(/\|\s*`([^`|]+)`[^|]*\|\s*(\d+)–(\d+), default (\d+)/g)];
    expect(rows.map((row) => row[1]).sort()).toEqual(Object.keys(limits).sort());
    for (const [, field, min, max, byDefault] of rows) {
      expect({ min: Number(min), max: Number(max), default: Number(byDefault) }, field).toEqual(
        limits[field!],
      );
    }
  });
});
