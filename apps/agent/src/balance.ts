import type { EngineCounters, EngineStatus } from '@ipfe/engine';
import type { ConfigDocument } from '@ipfe/schema';

const WINDOW_MS = 60_000;
const SAMPLE_EVERY_MS = 5_000;
/** Fewer new connections than this in the window carry too little signal to judge balance. */
const MIN_CONNECTIONS = 100;

interface Sample {
  at: number;
  opened: Map<string, number>;
  /** Packets in per Target Set so far, where the data path counts them (else none). */
  packets: ReadonlyMap<number, number>;
}

/**
 * Packets in per Target Set: over its TSAs (primary and secondary) from a data path's per-TSA
 * counts; a Target Set none of whose TSAs is counted is left out.
 */
export function packetsPerTargetSet(
  document: ConfigDocument,
  tsaPackets: ReadonlyMap<string, number> | undefined,
): Map<number, number> {
  const perSet = new Map<number, number>();
  if (!tsaPackets) return perSet;
  for (const ts of document.config.targetSets)
    for (const tsa of [ts.primary.address, ts.secondary?.address]) {
      const packets = tsa === undefined ? undefined : tsaPackets.get(tsa);
      if (packets !== undefined) perSet.set(ts.number, (perSet.get(ts.number) ?? 0) + packets);
    }
  return perSet;
}

/**
 * "Out of Balance: High" (alarm 5008) and "Low" (5007): a server whose share of the new
 * connections of its Target Set over the last minute exceeds, or falls short of, its expected
 * share (weight among the servers that can take new connections) by more than
 * imbalanceThresholdPct points.
 */
export class BalanceWatch {
  #samples: Sample[] = [];

  record(
    now: number,
    counters: EngineCounters,
    packets: ReadonlyMap<number, number> = new Map(),
  ): void {
    const last = this.#samples[this.#samples.length - 1];
    if (last && now - last.at < SAMPLE_EVERY_MS) return;
    const opened = new Map<string, number>();
    for (const ts of counters.targetSets)
      for (const s of ts.servers) opened.set(`${ts.number}|${s.address}`, s.opened);
    this.#samples.push({ at: now, opened, packets });
    while (this.#samples.length > 1 && now - this.#samples[0]!.at > WINDOW_MS)
      this.#samples.shift();
  }

  /**
   * `minPps`: Imbalance Detection Throughput Minimum — a Target Set whose packets in over the
   * window came below it a second is not judged. Where the data path counts no packets (user
   * space), it is judged on its new connections alone.
   */
  outOfBalance(
    status: EngineStatus,
    targetSets: Set<number>,
    thresholdPct: number,
    minPps = 0,
  ): { targetSet: number; server: string; text: string; side: 'high' | 'low' }[] {
    const first = this.#samples[0];
    const last = this.#samples[this.#samples.length - 1];
    if (!first || !last || first === last) return [];
    const found: { targetSet: number; server: string; text: string; side: 'high' | 'low' }[] = [];
    for (const ts of status.targetSets) {
      if (!targetSets.has(ts.number) || ts.disabled) continue;
      if (this.#belowMinimum(ts.number, minPps)) continue;
      const delta = (address: string) =>
        (last.opened.get(`${ts.number}|${address}`) ?? 0) -
        (first.opened.get(`${ts.number}|${address}`) ?? 0);
      const total = ts.servers.reduce((n, s) => n + delta(s.address), 0);
      if (total < MIN_CONNECTIONS) continue;
      const eligible = ts.servers.filter(
        (s) =>
          s.weight > 0 && !['offline', 'initializing', 'halting', 'overloaded'].includes(s.state),
      );
      const weights = eligible.reduce((n, s) => n + s.weight, 0);
      if (weights === 0) continue;
      for (const s of eligible) {
        const actual = (100 * delta(s.address)) / total;
        const expected = (100 * s.weight) / weights;
        const off = actual - expected;
        if (Math.abs(off) > thresholdPct) {
          found.push({
            targetSet: ts.number,
            server: s.address,
            side: off > 0 ? 'high' : 'low',
            text: `${s.address} took ${actual.toFixed(1)} % of new connections in the last minute; expected ${expected.toFixed(1)} %`,
          });
        }
      }
    }
    return found;
  }

  /**
   * Whether a Target Set's packets a second over the window are below the minimum. A data path
   * that counts packets (the last sample has the Target Set's) but has no earlier count of them
   * in the window (its counters were read for the first time, or went back: a table made anew)
   * gives no rate yet, and a Target Set is not judged without one. A path that counts none is.
   */
  #belowMinimum(targetSet: number, minPps: number): boolean {
    const last = this.#samples.at(-1)!;
    const now = last.packets.get(targetSet);
    if (now === undefined) return false;
    const then = this.#samples.find((s) => s !== last && s.packets.has(targetSet));
    const packetsThen = then?.packets.get(targetSet);
    if (!then || packetsThen === undefined || packetsThen > now) return true;
    return (now - packetsThen) / ((last.at - then.at) / 1000) < minPps;
  }
}
