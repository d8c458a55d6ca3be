import type { PortPackets } from './data-plane.ts';

/** Traffic Overload (5100) is raised at this share of the limit, and cleared below the next. */
export const OVERLOAD_RAISE_PCT = 80;
export const OVERLOAD_CLEAR_PCT = 70;
/** Throttling Traffic (5013) clears this long after the last packet dropped. */
export const THROTTLE_CLEAR_MS = 5000;
/** Rates are taken over at least this long (the counters are read about once a second). */
const RATE_WINDOW_MS = 1000;
const KEEP_MS = 10_000;

/** One forwarded port's traffic now. */
export interface PortLoad {
  port: number;
  /** Packets a second to the port's TSAs, dropped ones included. */
  pps: number;
  /** Of those, dropped above the Global Packet Rate Limit. */
  droppedPps: number;
  /** When a packet was last dropped (monotonic ms), or null. */
  lastDropAt: number | null;
}

/**
 * Follows the per-port packet counters a data path reads (every packet to a forwarded port, and
 * those dropped above the Global Packet Rate Limit) and tells each port's rates. Counters that go
 * back (a table made anew) start the port's history again.
 */
export class ThrottleWatch {
  #samples: { at: number; ports: ReadonlyMap<number, PortPackets> }[] = [];
  readonly #lastDropAt = new Map<number, number>();

  record(now: number, ports: ReadonlyMap<number, PortPackets> | undefined): void {
    if (!ports) return;
    const last = this.#samples.at(-1);
    if (last && now <= last.at) return;
    for (const [port, count] of ports) {
      const before = last?.ports.get(port);
      if (before && count.dropped > before.dropped) this.#lastDropAt.set(port, now);
      if (before && (count.packets < before.packets || count.dropped < before.dropped))
        this.#samples = this.#samples.map((s) => ({ ...s, ports: without(s.ports, port) }));
    }
    this.#samples.push({ at: now, ports: new Map(ports) });
    while (this.#samples.length > 2 && now - this.#samples[1]!.at >= KEEP_MS) this.#samples.shift();
  }

  /** Each port's rates over the last second or more (none before two reads a second apart). */
  loads(): PortLoad[] {
    const last = this.#samples.at(-1);
    if (!last) return [];
    const loads: PortLoad[] = [];
    for (const [port, now] of last.ports) {
      const first = [...this.#samples]
        .reverse()
        .find((s) => last.at - s.at >= RATE_WINDOW_MS && s.ports.has(port));
      const then = first?.ports.get(port);
      if (!first || !then) continue;
      const seconds = (last.at - first.at) / 1000;
      loads.push({
        port,
        pps: (now.packets - then.packets) / seconds,
        droppedPps: (now.dropped - then.dropped) / seconds,
        lastDropAt: this.#lastDropAt.get(port) ?? null,
      });
    }
    return loads.sort((a, b) => a.port - b.port);
  }
}

function without<K, V>(map: ReadonlyMap<K, V>, key: K): ReadonlyMap<K, V> {
  const copy = new Map(map);
  copy.delete(key);
  return copy;
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/** Traffic Overload (5100): ports at OVERLOAD_RAISE_PCT of the limit, kept until below the clear level. */
export function overloadedPorts(
  loads: readonly PortLoad[],
  limitPps: number,
  active: (server: string) => boolean,
): { server: string; text: string }[] {
  return loads.flatMap((l) => {
    const server = `port ${l.port}`;
    const pct = (100 * l.pps) / limitPps;
    const over = pct >= OVERLOAD_RAISE_PCT || (active(server) && pct >= OVERLOAD_CLEAR_PCT);
    return over
      ? [
          {
            server,
            text: `Port ${l.port} takes ${count(l.pps)} packets/s, ${Math.round(pct)} % of the Global Packet Rate Limit (${count(limitPps)} packets/s)`,
          },
        ]
      : [];
  });
}

/** Throttling Traffic (5013): ports that dropped a packet within THROTTLE_CLEAR_MS. */
export function throttledPorts(
  loads: readonly PortLoad[],
  limitPps: number,
  now: number,
): { server: string; text: string }[] {
  return loads.flatMap((l) =>
    l.lastDropAt !== null && now - l.lastDropAt < THROTTLE_CLEAR_MS
      ? [
          {
            server: `port ${l.port}`,
            text: `Port ${l.port}: ${count(l.droppedPps)} packets/s above the Global Packet Rate Limit (${count(limitPps)} packets/s) dropped`,
          },
        ]
      : [],
  );
}
