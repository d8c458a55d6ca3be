import type { EngineCounters } from '@ipfe/engine';
import type { AgentMeasurements, ConfigDocument } from '@ipfe/schema';
import type { Measured } from './data-plane.ts';

/** The TSAs of each Target Set of a configuration: its primary, and its secondary if any. */
function tsasOf(document: ConfigDocument | null): { number: number; tsas: string[] }[] {
  return (document?.config.targetSets ?? []).map((ts) => ({
    number: ts.number,
    tsas: [ts.primary.address, ...(ts.secondary ? [ts.secondary.address] : [])],
  }));
}

const sumOver = (tsas: readonly string[], read: (tsa: string) => number | undefined) =>
  tsas.reduce((total, tsa) => total + (read(tsa) ?? 0), 0);

/**
 * The measurements of GET /status: per Target Set of the configuration, its data path's totals
 * summed over its TSAs, and per server of it over the same; null where the data path does not
 * count one. TxReject is the Target Set's refusals for want of a server (`counters`, the engine's
 * and the data path's: countersView).
 */
export function measurementsView(
  document: ConfigDocument | null,
  counters: EngineCounters | null,
  measured: Measured,
  accounting: boolean,
): AgentMeasurements {
  const total = (by: Map<string, number> | null, tsas: readonly string[]) =>
    by ? sumOver(tsas, (tsa) => by.get(tsa)) : null;
  return {
    accounting,
    targetSets: tsasOf(document).map(({ number, tsas }) => {
      const refused = counters?.targetSets.find((t) => t.number === number)?.refused;
      const rows = document?.config.targetSets.find((t) => t.number === number)?.servers ?? [];
      const tx = measured.txBytes;
      return {
        number,
        rxBytes: total(measured.rxBytes, tsas),
        rxSctpBytes: total(measured.rxSctpBytes, tsas),
        rejected: refused ? refused['no-server'] : null,
        unexpectedTcp: total(measured.unexpectedTcp, tsas),
        unexpectedSctp: total(measured.unexpectedSctp, tsas),
        servers: rows.map((row) => ({
          address: row.address,
          txBytes: tx ? sumOver(tsas, (tsa) => tx.get(tsa, row.address)) : null,
        })),
      };
    }),
  };
}

export interface TsaValue {
  targetSet: number;
  tsa: string;
  value: number;
}

/**
 * The measurements as /metrics exports them, per TSA (and server) counted so far: a data path that
 * does not count one has no series of it (null), never a zero.
 */
export interface MeasurementSeries {
  rxBytes: TsaValue[] | null;
  rxSctpBytes: TsaValue[] | null;
  txBytes: (TsaValue & { server: string })[] | null;
  unexpected: (TsaValue & { protocol: 'tcp' | 'sctp' })[] | null;
}

export function measurementSeries(
  document: ConfigDocument | null,
  measured: Measured,
): MeasurementSeries {
  const targetSetOf = new Map(
    tsasOf(document).flatMap(({ number, tsas }) => tsas.map((tsa) => [tsa, number] as const)),
  );
  const perTsa = (by: Map<string, number> | null): TsaValue[] | null =>
    by &&
    [...by].flatMap(([tsa, value]) => {
      const targetSet = targetSetOf.get(tsa);
      return targetSet === undefined ? [] : [{ targetSet, tsa, value }];
    });
  const tx = measured.txBytes;
  const tcp = perTsa(measured.unexpectedTcp);
  const sctp = perTsa(measured.unexpectedSctp);
  return {
    rxBytes: perTsa(measured.rxBytes),
    rxSctpBytes: perTsa(measured.rxSctpBytes),
    txBytes:
      tx &&
      [...tx.entries()].flatMap(([tsa, server, value]) => {
        const targetSet = targetSetOf.get(tsa);
        return targetSet === undefined ? [] : [{ targetSet, tsa, server, value }];
      }),
    unexpected:
      tcp || sctp
        ? [
            ...(tcp ?? []).map((v) => ({ ...v, protocol: 'tcp' as const })),
            ...(sctp ?? []).map((v) => ({ ...v, protocol: 'sctp' as const })),
          ]
        : null,
  };
}
